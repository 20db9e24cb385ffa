import { describe, expect, test } from "bun:test";
import type { Pod, PodStatus } from "../../../src/api/index.ts";
import { generateAPIPodStatus, type GenerateOptions } from "../../../src/status/generate.ts";
import type { RuntimePodStatus } from "../../../src/container/index.ts";
import { c, podWith, sidecar } from "./states.ts";
import { exited, iso, rc, runtimeStatus, sandbox, T0 } from "./runtime.ts";

const NOW = T0 + 60_000;
const gen = (pod: Pod, status: RuntimePodStatus, opts: Partial<GenerateOptions> = {}) =>
  generateAPIPodStatus(pod, status, { podIsTerminal: false, waitingReason: () => undefined, hostIPs: ["192.168.1.10"], now: NOW, ...opts });
const conditionsOf = (s: PodStatus) => Object.fromEntries((s.conditions ?? []).map((c) => [c.type, [c.status, c.reason ?? "", c.message ?? ""]]));

describe("generateAPIPodStatus", () => {
  test("a running pod: Running, every condition True, pod and host IPs, ready and started containers", () => {
    const status = gen(podWith({ containers: [c("app")] }), runtimeStatus([rc("app")]), { oldStatus: { startTime: iso(T0) } });
    const at = iso(NOW);
    expect(status).toEqual({
      phase: "Running",
      conditions: [
        { type: "PodReadyToStartContainers", status: "True", lastProbeTime: null, lastTransitionTime: at },
        { type: "Initialized", status: "True", lastProbeTime: null, lastTransitionTime: at },
        { type: "Ready", status: "True", lastProbeTime: null, lastTransitionTime: at },
        { type: "ContainersReady", status: "True", lastProbeTime: null, lastTransitionTime: at },
        { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: at },
      ],
      hostIP: "192.168.1.10",
      hostIPs: [{ ip: "192.168.1.10" }],
      podIP: "10.88.0.5",
      podIPs: [{ ip: "10.88.0.5" }],
      startTime: iso(T0),
      containerStatuses: [
        {
          name: "app",
          state: { running: { startedAt: iso(T0 + 1_000) } },
          ready: true,
          started: true,
          restartCount: 0,
          image: "docker.io/library/busybox:1.36",
          imageID: "docker.io/library/busybox@sha256:abc",
          containerID: "containerd://app-id",
        },
      ],
      qosClass: "BestEffort",
    });
  });

  test("a pod whose sandbox is not there yet is Pending with its containers ContainerCreating", () => {
    const status = gen(podWith({ containers: [c("app")] }), runtimeStatus([], []));
    expect(status.phase).toBe("Pending");
    expect(status.podIP).toBeUndefined();
    expect(status.containerStatuses![0]!.state).toEqual({ waiting: { reason: "ContainerCreating" } });
    expect(conditionsOf(status)).toEqual({
      PodReadyToStartContainers: ["False", "", ""],
      Initialized: ["True", "", ""],
      Ready: ["False", "ContainersNotReady", "containers with unready status: [app]"],
      ContainersReady: ["False", "ContainersNotReady", "containers with unready status: [app]"],
      PodScheduled: ["True", "", ""],
    });
  });

  test("a running init container keeps the pod Pending and not Initialized", () => {
    const pod = podWith({ initContainers: [c("init")], containers: [c("app")] });
    const status = gen(pod, runtimeStatus([rc("init")]));
    expect(status.phase).toBe("Pending");
    expect(status.initContainerStatuses![0]!.state?.running).toBeDefined();
    expect(status.initContainerStatuses![0]!.ready).toBe(false);
    expect(status.containerStatuses![0]!.state).toEqual({ waiting: { reason: "PodInitializing" } });
    expect(conditionsOf(status).Initialized).toEqual(["False", "ContainersNotInitialized", "containers with incomplete status: [init]"]);
  });

  test("a completed init container is ready and the pod is initialized", () => {
    const pod = podWith({ initContainers: [c("init")], containers: [c("app")] });
    const status = gen(pod, runtimeStatus([exited("init", 0, { createdAt: T0 - 10_000 }), rc("app")]));
    expect(status.phase).toBe("Running");
    expect(status.initContainerStatuses![0]!.ready).toBe(true);
    expect(conditionsOf(status).Initialized).toEqual(["True", "", ""]);
  });

  test("a running sidecar without probes is started and ready; the pod runs with its regular container", () => {
    const pod = podWith({ initContainers: [sidecar("proxy")], containers: [c("app")] });
    const status = gen(pod, runtimeStatus([rc("proxy", { createdAt: T0 - 5_000 }), rc("app")]));
    expect(status.phase).toBe("Running");
    expect(status.initContainerStatuses![0]).toMatchObject({ ready: true, started: true });
    expect(conditionsOf(status).ContainersReady[0]).toBe("True");
  });

  test("readiness and startup probes: not ready or started until the prober says so", () => {
    const pod = podWith({ containers: [c("app", { readinessProbe: { exec: { command: ["true"] } }, startupProbe: { exec: { command: ["true"] } } })] });
    const results = new Map<string, boolean>();
    const probeResult = (probe: "readiness" | "startup", name: string, id: string) => results.get(`${probe}/${name}/${id}`);
    const first = gen(pod, runtimeStatus([rc("app")]), { probeResult });
    expect(first.containerStatuses![0]).toMatchObject({ started: false, ready: false });
    results.set("startup/app/containerd://app-id", true);
    expect(gen(pod, runtimeStatus([rc("app")]), { probeResult }).containerStatuses![0]).toMatchObject({ started: true, ready: false });
    results.set("readiness/app/containerd://app-id", true);
    const ready = gen(pod, runtimeStatus([rc("app")]), { probeResult });
    expect(ready.containerStatuses![0]).toMatchObject({ started: true, ready: true });
    expect(conditionsOf(ready).Ready[0]).toBe("True");
    // Without a prober, a container with a readiness probe is never reported ready.
    expect(gen(pod, runtimeStatus([rc("app")])).containerStatuses![0]!.ready).toBe(false);
  });

  // The kubelet's setReadyStateOnKubeletRestart (kubernetes#100277): after a restart, a running
  // container with a readiness probe but no result yet keeps the apiserver's Ready.
  test.each([
    // ran before the restart, apiserver Ready, probe result → ready
    [true, "True", undefined, true],
    [true, "False", undefined, false],
    [true, undefined, undefined, false],
    [false, "True", undefined, false],
    [true, "True", false, false],
    [false, "False", true, true],
  ] as const)("readiness after a restart: ran before=%p, apiserver Ready=%p, probe result=%p → ready %p", (before, apiReady, result, want) => {
    const pod = podWith({ containers: [c("app", { readinessProbe: { exec: { command: ["true"] } } })] });
    if (apiReady) pod.status = { phase: "Running", conditions: [{ type: "Ready", status: apiReady }] };
    const probeResult = (probe: "readiness" | "startup") => (probe === "readiness" ? result : undefined);
    const status = gen(pod, runtimeStatus([rc("app")]), { probeResult, ranBeforeRestart: (at) => before && at === T0 + 1_000 });
    expect(status.containerStatuses![0]!.ready).toBe(want);
    expect(conditionsOf(status).Ready[0]).toBe(want ? "True" : "False");
  });

  test("a terminal phase is sticky: the status manager's, then the API's", () => {
    const pod = podWith({ containers: [c("app")] });
    expect(gen(pod, runtimeStatus([rc("app")]), { oldStatus: { phase: "Succeeded" } }).phase).toBe("Succeeded");
    pod.status = { phase: "Failed" };
    expect(gen(pod, runtimeStatus([rc("app")]), { oldStatus: { phase: "Running" } }).phase).toBe("Failed");
  });

  test("a terminal pod (podIsTerminal) whose containers all exited gets Succeeded or Failed; a static pod does not", () => {
    const pod = podWith({ containers: [c("a"), c("b")] });
    const done = runtimeStatus([exited("a", 0), exited("b", 0)]);
    expect(gen(pod, done, { podIsTerminal: true }).phase).toBe("Succeeded");
    expect(gen(pod, runtimeStatus([exited("a", 0), exited("b", 1)]), { podIsTerminal: true }).phase).toBe("Failed");
    expect(gen(pod, done, { podIsTerminal: false }).phase).toBe("Running");
    const failed = gen(pod, runtimeStatus([exited("a", 0), exited("b", 1)]), { podIsTerminal: true });
    expect(conditionsOf(failed).Ready).toEqual(["False", "PodFailed", ""]);
    expect(conditionsOf(failed).ContainersReady).toEqual(["False", "PodFailed", ""]);
    const staticPod = podWith({ containers: [c("a"), c("b")] }, { static: true });
    expect(gen(staticPod, done, { podIsTerminal: true }).phase).toBe("Running");
  });

  test("transition times stay while a condition keeps its status and move when it changes", () => {
    const pod = podWith({ containers: [c("app")] });
    const first = gen(pod, runtimeStatus([rc("app")]));
    const later = gen(pod, runtimeStatus([exited("app", 1)]), { oldStatus: first, now: NOW + 30_000 });
    const times = Object.fromEntries(later.conditions!.map((c) => [c.type, c.lastTransitionTime]));
    expect(times).toEqual({
      PodReadyToStartContainers: iso(NOW),
      Initialized: iso(NOW),
      Ready: iso(NOW + 30_000),
      ContainersReady: iso(NOW + 30_000),
      PodScheduled: iso(NOW),
    });
  });

  test("the phase's reason and message are kept while the phase does not change", () => {
    const pod = podWith({ containers: [c("app")] });
    const old: PodStatus = { phase: "Running", reason: "SomeReason", message: "kept" };
    const same = gen(pod, runtimeStatus([rc("app")]), { oldStatus: old });
    expect([same.reason, same.message]).toEqual(["SomeReason", "kept"]);
    const changed = gen(pod, runtimeStatus([]), { oldStatus: old });
    expect([changed.reason, changed.message]).toEqual([undefined, undefined]);
  });

  test("a pod sync handler that evicts (the active deadline) makes the pod Failed with its reason and message", () => {
    const pod = podWith({ containers: [c("app")], activeDeadlineSeconds: 5 });
    const evicting = { shouldEvict: () => ({ evict: true, reason: "DeadlineExceeded", message: "Pod was active on the node longer than the specified deadline" }) };
    const keeping = { shouldEvict: () => ({ evict: false }) };
    const old: PodStatus = { phase: "Running", reason: "Old", message: "old" };
    const evicted = gen(pod, runtimeStatus([rc("app")]), { oldStatus: old, podSyncHandlers: [keeping, evicting] });
    expect([evicted.phase, evicted.reason, evicted.message]).toEqual(["Failed", "DeadlineExceeded", "Pod was active on the node longer than the specified deadline"]);
    expect(conditionsOf(evicted).Ready).toEqual(["False", "PodFailed", ""]);
    const kept = gen(pod, runtimeStatus([rc("app")]), { oldStatus: old, podSyncHandlers: [keeping] });
    expect([kept.phase, kept.reason]).toEqual(["Running", "Old"]);
    // The apiserver's terminal phase is final, whatever a handler says.
    pod.status = { phase: "Succeeded" };
    expect(gen(pod, runtimeStatus([]), { podSyncHandlers: [evicting] }).phase).toBe("Succeeded");
  });

  test("ephemeral containers get their own statuses: waiting, running, exited; never ready or started, and no weight in phase or conditions", () => {
    const pod = podWith({ containers: [c("app")], ephemeralContainers: [c("debugger"), c("debugger2"), c("done")] });
    const status = gen(pod, runtimeStatus([rc("app"), rc("debugger", { id: "dbg-id" }), exited("done", 0, { id: "done-id" })]), { oldStatus: { startTime: iso(T0) } });
    expect(status.phase).toBe("Running");
    expect(conditionsOf(status).Ready).toEqual(["True", "", ""]);
    expect(status.containerStatuses!.map((s) => s.name)).toEqual(["app"]);
    expect(status.ephemeralContainerStatuses).toEqual([
      {
        name: "debugger",
        state: { running: { startedAt: iso(T0 + 1_000) } },
        ready: false,
        restartCount: 0,
        image: "docker.io/library/busybox:1.36",
        imageID: "docker.io/library/busybox@sha256:abc",
        containerID: "containerd://dbg-id",
      },
      { name: "debugger2", state: { waiting: { reason: "ContainerCreating" } }, ready: false, restartCount: 0, image: "busybox", imageID: "" },
      {
        name: "done",
        state: {
          terminated: { exitCode: 0, reason: "Completed", startedAt: iso(T0 + 1_000), finishedAt: iso(T0 + 5_000), containerID: "containerd://done-id" },
        },
        ready: false,
        restartCount: 0,
        image: "docker.io/library/busybox:1.36",
        imageID: "docker.io/library/busybox@sha256:abc",
        containerID: "containerd://done-id",
      },
    ]);
    // An ephemeral container that exited keeps its terminated status once its record is gone.
    const later = gen(pod, runtimeStatus([rc("app"), rc("debugger", { id: "dbg-id" })]), { oldStatus: status });
    expect(later.ephemeralContainerStatuses!.find((s) => s.name === "done")!.state?.terminated?.exitCode).toBe(0);
    // A pod without ephemeral containers reports none.
    expect(gen(podWith({ containers: [c("app")] }), runtimeStatus([rc("app")])).ephemeralContainerStatuses).toBeUndefined();
  });

  test("conditions the kubelet does not own are kept, and DisruptionTarget comes from the old status", () => {
    const pod = podWith({ containers: [c("app")] });
    pod.status = { conditions: [{ type: "example.com/gate", status: "True" }, { type: "Ready", status: "False" }] };
    const status = gen(pod, runtimeStatus([rc("app")]), { oldStatus: { conditions: [{ type: "DisruptionTarget", status: "True", reason: "Preempted" }] } });
    expect(status.conditions!.map((c) => c.type)).toEqual([
      "example.com/gate",
      "DisruptionTarget",
      "PodReadyToStartContainers",
      "Initialized",
      "Ready",
      "ContainersReady",
      "PodScheduled",
    ]);
  });

  test("pod IPs follow the node's IP family, at most one per family", () => {
    const pod = podWith({ containers: [c("app")] });
    const dual = runtimeStatus([rc("app")], [sandbox({ ips: ["fd00::5", "10.88.0.5", "10.88.0.6"] })]);
    expect(gen(pod, dual).podIPs).toEqual([{ ip: "10.88.0.5" }, { ip: "fd00::5" }]);
    expect(gen(pod, dual, { hostIPs: ["fd00::1", "192.168.1.10", "10.0.0.1"] })).toMatchObject({
      podIP: "fd00::5",
      hostIP: "fd00::1",
      hostIPs: [{ ip: "fd00::1" }, { ip: "192.168.1.10" }],
    });
  });

  test("a hostNetwork pod reports the node's IPs as its pod IPs", () => {
    const pod = podWith({ containers: [c("app")], hostNetwork: true });
    const status = gen(pod, runtimeStatus([rc("app")], [sandbox({ ips: [], hostNetwork: true })]), { hostIPs: ["192.168.1.10", "fd00::10"] });
    expect(status.podIPs).toEqual([{ ip: "192.168.1.10" }, { ip: "fd00::10" }]);
    expect(conditionsOf(status).PodReadyToStartContainers[0]).toBe("True");
  });
});
