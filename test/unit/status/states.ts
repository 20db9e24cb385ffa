/** API container status builders for the status tables (the upstream tests' helpers, in TS). */
import type { Container, ContainerStatus, Pod, PodSpec } from "../../../src/api/index.ts";
import { ConfigSourceAnnotationKey } from "../../../src/api/index.ts";
import { makePod } from "../../fixtures/pods.ts";

export const waiting = (name: string, reason?: string): ContainerStatus => ({
  name,
  state: { waiting: reason ? { reason } : {} },
  ready: false,
  restartCount: 0,
  image: "",
  imageID: "",
});
export const waitingWithLastTermination = (name: string, exitCode = 0): ContainerStatus => ({
  ...waiting(name),
  lastState: { terminated: { exitCode } },
});
export const running = (name: string): ContainerStatus => ({ ...waiting(name), state: { running: {} } });
export const started = (name: string): ContainerStatus => ({ ...running(name), started: true });
export const stopped = (name: string): ContainerStatus => ({ ...waiting(name), state: { terminated: { exitCode: 0 } } });
export const succeeded = stopped;
export const failed = (name: string): ContainerStatus => ({ ...waiting(name), state: { terminated: { exitCode: -1 } } });
export const ready = (s: ContainerStatus): ContainerStatus => ({ ...s, ready: true });
export const notReady = (name: string): ContainerStatus => ({ ...waiting(name), ready: false });
export const readyStatus = (name: string): ContainerStatus => ({ ...waiting(name), ready: true });

export function podWith(spec: Partial<PodSpec>, opts: { static?: boolean } = {}): Pod {
  const pod = makePod({ name: "p", namespace: "ns", metadata: { uid: "uid-1", annotations: {} }, spec: { containers: [], ...spec } });
  if (opts.static) pod.metadata.annotations![ConfigSourceAnnotationKey] = "file";
  return pod;
}

export const c = (name: string, extra: Partial<Container> = {}): Container => ({ name, image: "busybox", ...extra });
export const sidecar = (name: string): Container => c(name, { restartPolicy: "Always" });
