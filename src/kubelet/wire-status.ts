/**
 * The pod status area of the wiring when bunlet joins a cluster: the status manager's apiserver
 * sync (pod statuses patched, finished pods being deleted removed), on the node area's
 * rate-limited client. Standalone (no client) it does nothing: statuses stay local (/pods).
 */
import { ConfigMirrorAnnotationKey } from "../api/index.ts";
import type { ApiClient } from "../apiclient/index.ts";
import { createStatusSync, type StatusManager } from "../status/index.ts";
import type { PodManager } from "./pod-manager.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-runtime.ts";

export function wireStatusSync(base: WireBase, client: ApiClient | undefined, parts: { statusManager: StatusManager; podManager: PodManager }): AsyncDisposable {
  const { clock, log, signal } = base;
  if (client === undefined) return { [Symbol.asyncDispose]: async () => {} };
  const stop = new AbortController();
  const sync = createStatusSync({
    client,
    statusManager: parts.statusManager,
    podOf: (uid) => parts.podManager.get(uid),
    // Mirror pods reach the pod manager through the apiserver source: the pod of the same name
    // carrying the mirror annotation (the mirror-pod manager may serve this from its own index).
    mirrorPodOf: (staticPod) =>
      parts.podManager.pods().find(
        (p) =>
          p.metadata.namespace === staticPod.metadata.namespace &&
          p.metadata.name === staticPod.metadata.name &&
          p.metadata.annotations?.[ConfigMirrorAnnotationKey] !== undefined,
      ),
    clock,
    log: log.with({ component: "status_manager" }),
  });
  const running = sync.run(AbortSignal.any([signal, stop.signal]));
  const stack = new AsyncDisposableStack();
  deferLogged(stack, log, "pod status sync", async () => {
    stop.abort();
    await running;
  });
  return { [Symbol.asyncDispose]: () => stack.disposeAsync() };
}
