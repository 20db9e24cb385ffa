// Shared fixtures of the prober unit tests: a pod with one probed container, runtime statuses,
// and a scripted checker that records what it was asked to probe.
import type { Container, Pod, Probe } from "../../../src/api/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { silentLogger } from "../../../src/lib/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import type { CheckRequest, ContainerChecker } from "../../../src/prober/probe-check.ts";
import type { PodProbeView } from "../../../src/prober/probe-worker.ts";
import type { ProbeResult } from "../../../src/prober/results.ts";
import type { RuntimePodStatus, RuntimeContainerStatus } from "../../../src/container/index.ts";

export const UID = "uid-1";

/** The pod "web" (uid UID) with the one container "c" the probes are set on. */
export function probedPod(container: Partial<Container> = {}, over: Partial<Pod["spec"]> = {}): Pod {
  return makePod({ name: "web", namespace: "default", metadata: { uid: UID }, spec: { restartPolicy: "Always", containers: [{ name: "c", image: "busybox", ...container }], ...over } });
}

export const probe = (over: Partial<Probe> = {}): Probe => ({ exec: { command: ["check"] }, periodSeconds: 10, ...over });

export function containerStatus(id: string, state: RuntimeContainerStatus["state"], startedAt: number, name = "c"): RuntimeContainerStatus {
  return {
    id,
    name,
    state,
    createdAt: startedAt,
    startedAt,
    finishedAt: state === "exited" ? startedAt + 1 : 0,
    exitCode: state === "exited" ? 1 : 0,
    reason: "",
    message: "",
    image: "busybox",
    imageRef: "sha256:1",
    hash: "h",
    restartCount: 0,
    containerType: "container",
    sandboxId: "sb",
    logPath: "",
    annotations: {},
    labels: {},
  };
}

export function podStatus(...containers: RuntimeContainerStatus[]): RuntimePodStatus {
  return { uid: UID, name: "web", namespace: "default", ips: ["10.0.0.2"], sandboxStatuses: [], containerStatuses: containers };
}

/** What the provider returns, mutable by the test; undefined = no status for the pod. */
export class FakeProvider {
  view: PodProbeView | undefined;
  constructor(pod: Pod, status: RuntimePodStatus | undefined) {
    this.view = status && { pod, podStatus: status, podIP: "10.0.0.2" };
  }
  readonly get = (uid: string) => (uid === this.view?.pod.metadata.uid ? this.view : undefined);
}

/** Answers with queued results (then `fallback`), recording each request. */
export class ScriptedChecker {
  readonly calls: CheckRequest[] = [];
  readonly queue: (ProbeResult | undefined)[] = [];
  fallback: ProbeResult | undefined = "Success";
  readonly check: ContainerChecker = async (req) => {
    this.calls.push(req);
    return this.queue.length > 0 ? this.queue.shift() : this.fallback;
  };
}

export const START = Date.UTC(2026, 0, 1);
export const newClock = () => new FakeClock(START);
export const log = silentLogger;
