/**
 * The pod status area of the wiring when bunlet joins a cluster: the status manager's apiserver
 * sync (pod statuses patched, finished pods being deleted removed), on the node area's
 * rate-limited client. Standalone (no client) it does nothing: statuses stay local (/pods).
 */
import type { Pod } from "../api/index.ts";
import type { ApiClient } from "../apiclient/index.ts";
import type { Heartbeat } from "../node/index.ts";
import { createStatusSync, type StatusManager } from "../status/index.ts";
import type { PodManager } from "../podsync/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";

export function wireStatusSync(
  base: WireBase,
  client: ApiClient | undefined,
  parts: {
    statusManager: StatusManager;
    podManager: PodManager;
    mirrorPodOf?: (staticPod: Pod) => Pod | undefined;
    /** The node agent's heartbeat: pod statuses wait for the Lease and the Node's status after an outage. */
    heartbeat?: Heartbeat;
  },
): AsyncDisposable {
  const { clock, log, signal } = base;
  if (client === undefined) return { [Symbol.asyncDispose]: async () => {} };
  const stop = new AbortController();
  const sync = createStatusSync({
    client,
    statusManager: parts.statusManager,
    podOf: (uid) => parts.podManager.get(uid),
    // The mirror-pod manager's view (src/mirrorpods watches this node's mirror pods; the pod
    // manager never holds them).
    mirrorPodOf: (staticPod) => parts.mirrorPodOf?.(staticPod),
    answering: parts.heartbeat ? (signal) => parts.heartbeat!.answering(signal) : undefined,
    clock,
    log: log.with({ component: "status_manager" }),
    metrics: base.metrics,
    startupLatency: base.startupLatency,
  });
  const running = sync.run(AbortSignal.any([signal, stop.signal]));
  const stack = new AsyncDisposableStack();
  deferLogged(stack, log, "pod status sync", async () => {
    stop.abort();
    await running;
  });
  return { [Symbol.asyncDispose]: () => stack.disposeAsync() };
}
