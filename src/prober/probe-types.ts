/**
 * What every probe kind shares: the outcome type, the error for a probe that could not be run,
 * and the kubelet's fixed values (User-Agent, output cap).
 */

/** What probes send as User-Agent: the kubelet's `kube-probe/<major>.<minor>` of the version we follow. */
export const PROBE_USER_AGENT = "kube-probe/1.36";

/** Output (exec) and body (HTTP) are read up to 10 KiB, as the kubelet does. */
export const MAX_PROBE_OUTPUT_BYTES = 10 * 1024;

/** Warning is a success with something to say (an HTTP redirect to another host, not followed). */
export type ProbeOutcomeResult = "Success" | "Warning" | "Failure" | "Unknown";

export interface ProbeOutcome {
  result: ProbeOutcomeResult;
  output: string;
}

/** The probe could not be run (bad port, runtime error): there is no result to record. */
export class ProbeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProbeError";
  }
}

/** The concatenated bytes, at most MAX_PROBE_OUTPUT_BYTES of them, as text. */
export function cappedText(parts: Uint8Array[]): string {
  const size = Math.min(MAX_PROBE_OUTPUT_BYTES, parts.reduce((n, p) => n + p.length, 0));
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    if (at >= size) break;
    const take = p.subarray(0, size - at);
    all.set(take, at);
    at += take.length;
  }
  return new TextDecoder().decode(all);
}
