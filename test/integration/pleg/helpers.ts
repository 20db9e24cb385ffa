// Shared pieces of the PLEG integration tests: pods created through CRI with the kubelet's
// labels, a logger a test can wait on, and waiting for one PLEG event with a deadline.
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import type { Channel, Logger } from "../../../src/lib/index.ts";
import { createMemoryLogger } from "../../../src/lib/testing.ts";
import type { PodLifecycleEvent } from "../../../src/pleg/index.ts";
import { containerConfig, sandboxConfig } from "../../fake-cri/fixtures.ts";

export const BUSYBOX = "docker.io/library/busybox:1.36";

export interface CreatedPod {
  uid: string;
  sandboxId: string;
  containerIds: string[];
}

/** A pod with `containers` running busybox containers, labelled as the kubelet labels them. */
export async function createPod(cri: CriClient, name: string, containers = 1): Promise<CreatedPod> {
  const config = sandboxConfig(name);
  const uid = config.metadata!.uid!;
  const podLabels = { "io.kubernetes.pod.name": name, "io.kubernetes.pod.namespace": "default", "io.kubernetes.pod.uid": uid };
  const { podSandboxId } = await cri.runtime.runPodSandbox({ config });
  const containerIds: string[] = [];
  for (let i = 0; i < containers; i++) {
    const { containerId } = await cri.runtime.createContainer({
      podSandboxId,
      config: containerConfig(`c${i}`, BUSYBOX, ["sleep", "3600"], { labels: podLabels }),
      sandboxConfig: config,
    });
    await cri.runtime.startContainer({ containerId });
    containerIds.push(containerId);
  }
  return { uid, sandboxId: podSandboxId, containerIds };
}

/** A memory logger whose lines a test can wait for. */
export function watchedLogger(): Logger & { lines: Record<string, unknown>[]; when(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>> } {
  const base = createMemoryLogger();
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  const wrap = (logger: Logger): Logger => ({
    info: (m, f) => (logger.info(m, f), notify()),
    warn: (m, f) => (logger.warn(m, f), notify()),
    error: (m, f) => (logger.error(m, f), notify()),
    debug: (m, f, l) => (logger.debug(m, f, l), notify()),
    with: (f) => wrap(logger.with(f)),
  });
  return Object.assign(wrap(base), {
    lines: base.lines,
    when(match: (line: Record<string, unknown>) => boolean, timeoutMs = 5000) {
      return new Promise<Record<string, unknown>>((resolve, reject) => {
        const check = () => {
          const line = base.lines.find(match);
          if (!line) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(line);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching log line within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  });
}

/** Receives PLEG events until one matches; fails after the deadline. Returns it with the others seen. */
export async function nextEvent(
  events: Channel<PodLifecycleEvent>,
  match: (e: PodLifecycleEvent) => boolean,
  timeoutMs = 5000,
): Promise<{ event: PodLifecycleEvent; seen: PodLifecycleEvent[] }> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const seen: PodLifecycleEvent[] = [];
  for (;;) {
    let event: PodLifecycleEvent;
    try {
      event = await events.receive({ signal: deadline });
    } catch (err) {
      if (deadline.aborted) throw new Error(`no matching PLEG event within ${timeoutMs} ms; saw ${JSON.stringify(seen)}`);
      throw err;
    }
    seen.push(event);
    if (match(event)) return { event, seen };
  }
}

export function client(endpoint: string): CriClient {
  return createCriClient({ endpoint });
}
