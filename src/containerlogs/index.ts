/**
 * Container log files in the CRI format: parsing one line, and reading a file as the kubelet's
 * ReadLogs does (tail, since, stream, timestamps, byte limit, follow across rotation). The kubelet
 * API's /containerLogs serves it; the caller finds the file (the container's CRI logPath).
 */
export { readContainerLog, type LogOptions } from "./read.ts";
