/**
 * The RuntimeClass area: with --kubeconfig, the RuntimeClass manager watches node.k8s.io/v1
 * RuntimeClasses (through its own client, limited like the kubelet's: kubeAPIQPS/kubeAPIBurst)
 * and gives the runtime manager each pod's handler. Standalone, as the kubelet without an
 * apiserver, every pod gets the runtime's default handler.
 */
import type { Pod } from "../api/index.ts";
import { createApiClient, loadKubeconfig, restClientLimits } from "../apiclient/index.ts";
import type { BunletConfig } from "../config/index.ts";
import { createRuntimeClassManager } from "../runtimeclass/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";
import { restClientObserver } from "../metrics/index.ts";

export interface RuntimeClassParts extends AsyncDisposable {
  /** undefined when standalone. */
  runtimeHandler?: (pod: Pod) => string;
}

export function wireRuntimeClass(config: BunletConfig, base: WireBase): RuntimeClassParts {
  const { clock, log, random, signal } = base;
  if (config.kubeconfig === "") return { [Symbol.asyncDispose]: async () => {} };
  const client = createApiClient(loadKubeconfig(config.kubeconfig), { clock, onRequest: restClientObserver(base.metrics), signal, ...restClientLimits(config.kubeAPIQPS, config.kubeAPIBurst), userAgent: "bunlet/runtimeclass" });
  const manager = createRuntimeClassManager({ client, clock, random, log });
  const stop = new AbortController();
  const running = manager.run(AbortSignal.any([signal, stop.signal]));
  const stack = new AsyncDisposableStack();
  deferLogged(stack, log, "RuntimeClass manager", async () => {
    stop.abort();
    await running;
  });
  return { runtimeHandler: (pod) => manager.lookupRuntimeHandler(pod.spec.runtimeClassName), [Symbol.asyncDispose]: () => stack.disposeAsync() };
}
