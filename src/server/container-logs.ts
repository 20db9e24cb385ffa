/**
 * GET /containerLogs/{namespace}/{pod}/{container}: the kubelet's getContainerLogs. The query is
 * a v1 PodLogOptions (follow, previous, tailLines, sinceSeconds, sinceTime, timestamps,
 * limitBytes; `tail` as the old spelling of tailLines), the container is chosen from the pod's
 * API status as the kubelet's validateContainerLogStatus chooses it, and its CRI log file is
 * streamed as it is read. Errors are the kubelet's: 400 for a bad query, 404 for an unknown pod
 * or container, 400 naming why a container has no log yet.
 */
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import type { Pod } from "../api/index.ts";
import { allContainerStatuses, podHasContainer } from "../container/index.ts";
import { readContainerLog, type LogOptions } from "../containerlogs/index.ts";
import { ContainerState, type CriClient } from "../cri/index.ts";
import type { Clock, Logger } from "../lib/index.ts";

export interface ContainerLogsDeps {
  pod(namespace: string, name: string): Pod | undefined;
  cri: CriClient;
  clock: Clock;
  log: Logger;
  /** How often a followed log is looked at again. */
  followPollMs?: number;
}

const FOLLOW_POLL_MS = 250;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function int(query: URLSearchParams, name: string, min: number): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^-?\d+$/.test(raw)) throw new HttpError(400, `{"message": "Unable to decode query."}`);
  const n = Number(raw);
  if (n < min) throw new HttpError(422, `{"message": "Invalid request."}`);
  return n;
}

function bool(query: URLSearchParams, name: string): boolean {
  const raw = query.get(name);
  if (raw === null || raw === "") return false;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new HttpError(400, `{"message": "Unable to decode query."}`);
}

/** The kubelet's PodLogOptions from the query, and whether `previous` was asked. */
export function logOptionsFromQuery(query: URLSearchParams, nowMs: number): LogOptions & { previous: boolean } {
  const q = new URLSearchParams(query);
  const tail = q.get("tail");
  if (tail !== null && tail !== "") {
    if (tail === "all") q.delete("tailLines");
    else q.set("tailLines", tail);
  }
  const tailLines = int(q, "tailLines", 0);
  const sinceSeconds = int(q, "sinceSeconds", 1);
  const limitBytes = int(q, "limitBytes", 1);
  const sinceTimeRaw = q.get("sinceTime");
  let sinceMs: number | undefined;
  if (sinceTimeRaw !== null && sinceTimeRaw !== "") {
    sinceMs = Date.parse(sinceTimeRaw);
    if (Number.isNaN(sinceMs)) throw new HttpError(400, `{"message": "Unable to decode query."}`);
  }
  if (sinceSeconds !== undefined) {
    if (sinceMs !== undefined) throw new HttpError(422, `{"message": "Invalid request."}`);
    sinceMs = nowMs - sinceSeconds * 1000;
  }
  const stream = q.get("stream");
  if (stream !== null && stream !== "" && stream !== "All" && stream !== "Stdout" && stream !== "Stderr") {
    throw new HttpError(400, `invalid stream type "${stream}"`);
  }
  return {
    follow: bool(q, "follow"),
    previous: bool(q, "previous"),
    timestamps: bool(q, "timestamps"),
    tailLines,
    sinceMs,
    limitBytes,
    stream: stream === "Stdout" ? "stdout" : stream === "Stderr" ? "stderr" : undefined,
  };
}


/** The kubelet's validateContainerLogStatus: the CRI id whose log to read, or why there is none. */
export function logContainerId(pod: Pod, containerName: string, previous: boolean): string {
  const podName = pod.metadata?.name ?? "";
  const status = allContainerStatuses(pod).find((c) => c.name === containerName);
  const fail = (why: string): never => {
    throw new HttpError(400, `container "${containerName}" in pod "${podName}" ${why}`);
  };
  if (!status) return fail("is not available");
  const last = status.lastState?.terminated;
  const state = status.state ?? {};
  let id: string | undefined;
  if (previous) {
    if (!last?.containerID) throw new HttpError(400, `previous terminated container "${containerName}" in pod "${podName}" not found`);
    id = last.containerID;
  } else if (state.running) id = status.containerID;
  else if (state.terminated) {
    id = state.terminated.containerID || last?.containerID;
    if (!id) fail("is terminated");
  } else if (last) {
    if (!last.containerID) fail("is terminated");
    id = last.containerID;
  } else if (state.waiting) {
    const reason = state.waiting.reason ?? "";
    if (reason === "ErrImagePull") fail("is waiting to start: image can't be pulled");
    if (reason === "ImagePullBackOff") fail("is waiting to start: trying and failing to pull image");
    fail(`is waiting to start: ${reason}`);
  }
  if (!id) return fail("is waiting to start - no logs yet");
  // "containerd://<id>" → "<id>"
  return id.includes("://") ? id.slice(id.indexOf("://") + 3) : id;
}

export async function containerLogs(deps: ContainerLogsDeps, path: string, query: URLSearchParams, signal: AbortSignal): Promise<Response> {
  const [namespace, podName, containerName] = path.slice("/containerLogs/".length).split("/");
  if (!podName) throw new HttpError(400, `{"message": "Missing podID."}`);
  if (!containerName) throw new HttpError(400, `{"message": "Missing container name."}`);
  if (!namespace) throw new HttpError(400, `{"message": "Missing podNamespace."}`);
  const opts = logOptionsFromQuery(query, deps.clock.now());
  const pod = deps.pod(namespace, podName);
  if (!pod) throw new HttpError(404, `pod "${podName}" does not exist`);
  if (!podHasContainer(pod, containerName)) throw new HttpError(404, `container "${containerName}" not found in pod "${podName}"`);
  const id = logContainerId(pod, containerName, opts.previous);
  const res = await deps.cri.runtime.containerStatus({ containerId: id }, { signal });
  const logPath = res.status?.logPath ?? "";
  if (logPath === "") throw new HttpError(400, `failed to get container status "${id}": no log path`);

  // The stream is cancelled when the client goes away; that ends a follow.
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const pollMs = deps.followPollMs ?? FOLLOW_POLL_MS;
  const chunks = readContainerLog(
    logPath,
    opts,
    {
      wait: (s) => deps.clock.sleep(pollMs, s),
      isRunning: async () => {
        const r = await deps.cri.runtime.containerStatus({ containerId: id }, { signal: stop.signal });
        return r.status?.state === ContainerState.CONTAINER_RUNNING;
      },
      onBadLine: (err) => deps.log.error("Failed when parsing line in log file", { path: logPath, err }),
    },
    stop.signal,
  );
  // A missing file is an error status, not an empty 200; a quiet followed log answers at once.
  try {
    await access(logPath, constants.R_OK);
  } catch (err) {
    throw new HttpError(400, `failed to open log file "${logPath}": ${(err as Error).message}`);
  }
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) {
          signal.removeEventListener("abort", onAbort);
          controller.close();
        } else controller.enqueue(next.value);
      } catch (err) {
        controller.error(err);
      }
    },
    async cancel() {
      stop.abort();
      signal.removeEventListener("abort", onAbort);
      await chunks.return(undefined);
    },
  });
  return new Response(body, { headers: { "content-type": "text/plain" } });
}
