/**
 * The kubelet's RuntimeClass manager (pkg/kubelet/runtimeclass): node.k8s.io/v1 RuntimeClasses,
 * listed and watched into a local store, turn a pod's spec.runtimeClassName into the CRI runtime
 * handler RunPodSandbox gets. No name is the runtime's default handler (""); a name the store does
 * not hold is the apiserver's NotFound error, as the kubelet's lister says it
 * (`runtimeclass.node.k8s.io "x" not found`), and the sandbox is not created.
 */
import type { RuntimeClass } from "kubernetes-types/node/v1";
import { createReflector, ObjectStore, resourcePath, type ApiClient, type KubeObject } from "../apiclient/index.ts";
import type { Clock, Logger } from "../lib/index.ts";

export class RuntimeClassNotFoundError extends Error {
  override readonly name = "RuntimeClassNotFoundError";
  constructor(readonly runtimeClassName: string) {
    super(`runtimeclass.node.k8s.io "${runtimeClassName}" not found`);
  }
}

export interface RuntimeClassManager {
  /** Lists and watches RuntimeClasses until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** The handler of the named RuntimeClass; "" for none; throws RuntimeClassNotFoundError. */
  lookupRuntimeHandler(runtimeClassName: string | undefined): string;
}

export function createRuntimeClassManager(deps: {
  client: Pick<ApiClient, "list" | "watch">;
  clock: Clock;
  random: () => number;
  log: Logger;
}): RuntimeClassManager {
  const store = new ObjectStore<RuntimeClass & KubeObject>();
  const reflector = createReflector<RuntimeClass & KubeObject>({
    client: deps.client,
    path: resourcePath({ apiVersion: "node.k8s.io/v1", resource: "runtimeclasses" }),
    store,
    clock: deps.clock,
    random: deps.random,
    log: deps.log,
    name: "*v1.RuntimeClass",
  });
  return {
    run: (signal) => reflector.run(signal),
    lookupRuntimeHandler(name) {
      if (!name) return "";
      const rc = store.get(name);
      if (!rc) throw new RuntimeClassNotFoundError(name);
      return rc.handler;
    },
  };
}
