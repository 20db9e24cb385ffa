/**
 * Helpers for tests that talk to a CRI runtime (the fake or containerd): request builders with
 * the kubelet's shape, and an event stream reader that waits for the next event with a deadline.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  toCriError,
  type ContainerConfigSchema,
  type ContainerEventResponse,
  type CriClient,
  type CriError,
  type PodSandboxConfigSchema,
} from "../../src/cri/index.ts";
import { Channel } from "../../src/lib/index.ts";

export type SandboxConfigInit = MessageInitShape<typeof PodSandboxConfigSchema>;
export type ContainerConfigInit = MessageInitShape<typeof ContainerConfigSchema>;

/** A pod sandbox config like the kubelet's, with a fresh uid per call unless given. */
export function sandboxConfig(
  name: string,
  options: { uid?: string; namespace?: string; attempt?: number; labels?: Record<string, string>; annotations?: Record<string, string>; hostNetwork?: boolean; logDirectory?: string } = {},
): SandboxConfigInit {
  const uid = options.uid ?? crypto.randomUUID();
  const namespace = options.namespace ?? "default";
  return {
    metadata: { name, uid, namespace, attempt: options.attempt ?? 0 },
    // The kubelet sets no hostname for host-network pods (runc refuses one without a UTS namespace).
    hostname: options.hostNetwork ? "" : name,
    logDirectory: options.logDirectory ?? `/var/log/pods/${namespace}_${name}_${uid}`,
    labels: { "io.kubernetes.pod.name": name, "io.kubernetes.pod.namespace": namespace, "io.kubernetes.pod.uid": uid, ...options.labels },
    annotations: { ...options.annotations },
    linux: {
      securityContext: { namespaceOptions: { network: options.hostNetwork ? 2 : 0, pid: 1, ipc: 0 } },
    },
  };
}

export function containerConfig(
  name: string,
  image: string,
  command: string[],
  options: { attempt?: number; labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): ContainerConfigInit {
  const attempt = options.attempt ?? 0;
  return {
    metadata: { name, attempt },
    image: { image },
    command,
    logPath: `${name}/${attempt}.log`,
    labels: { "io.kubernetes.container.name": name, ...options.labels },
    annotations: { ...options.annotations },
  };
}

export interface EventStreamReader {
  /** The next event; rejects after `timeoutMs` or when the stream ended first. */
  next(timeoutMs?: number): Promise<ContainerEventResponse>;
  /** Resolves when the stream ends: undefined for a clean end, else the error it ended with. */
  readonly ended: Promise<CriError | undefined>;
  close(): void;
}

export function readEvents(client: CriClient): EventStreamReader {
  const controller = new AbortController();
  const queue = new Channel<ContainerEventResponse>(10_000);
  const ended = (async (): Promise<CriError | undefined> => {
    try {
      for await (const event of client.runtime.getContainerEvents({}, { signal: controller.signal })) queue.trySend(event);
      return undefined;
    } catch (err) {
      return toCriError("GetContainerEvents", err);
    } finally {
      queue.close();
    }
  })();
  return {
    ended,
    async next(timeoutMs = 5000) {
      const deadline = AbortSignal.timeout(timeoutMs);
      try {
        return await queue.receive({ signal: deadline });
      } catch (err) {
        if (deadline.aborted) throw new Error(`no container event within ${timeoutMs} ms`);
        const reason = await ended;
        throw new Error(`event stream ended before the next event: ${reason?.message ?? "clean end"}`, { cause: err });
      }
    },
    close: () => controller.abort(),
  };
}

/**
 * The CriError a call failed with; throws if it succeeded. Use this instead of
 * `expect(promise).rejects`: under Bun 1.4 that can stall the event loop's socket I/O while it
 * waits, and a call to an in-process fake then never gets its answer (DEADLINE_EXCEEDED).
 */
export async function callError(promise: Promise<unknown>): Promise<CriError> {
  let value: unknown;
  try {
    value = await promise;
  } catch (err) {
    return toCriError("call", err);
  }
  throw new Error(`expected the call to fail, it returned ${JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? `${v}` : v))}`);
}
