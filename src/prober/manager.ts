/**
 * The probe manager (the kubelet's prober_manager.go): it owns one worker per (pod UID,
 * container, probe type) for every regular container and sidecar that defines a probe, the three
 * result caches with their update channels, and the lookups the rest of the agent reads:
 * started/ready for status generation, liveness/startup for computePodActions. Workers remove
 * themselves from the table when their loop ends, so a stopped worker is not replaced until it
 * has cleaned up its result.
 */
import { podRef, podUID, type Container, type Pod } from "../api/index.ts";
import { isRestartableInitContainer } from "../container/index.ts";
import type { CriClient } from "../cri/index.ts";
import type { EventRecorder } from "../events/index.ts";
import type { Channel, Clock, Logger } from "../lib/index.ts";
import { checkContainer, type ContainerChecker, type ProbeType } from "./probe-check.ts";
import { ProbeWorker, ranBeforeRestart, type ProbeMetrics, type StatusProvider } from "./probe-worker.ts";
import { parseContainerId, ResultsManager, type ProbeResult, type ProbeUpdate } from "./results.ts";

export interface ProbeManagerDeps {
  cri: Pick<CriClient, "runtime">;
  clock: Clock;
  /** Random source in [0, 1), for the start-up jitter. */
  random: () => number;
  log: Logger;
  /** prober_probe_total and prober_probe_duration_seconds (the probe registry). */
  metrics: ProbeMetrics;
  statusProvider: StatusProvider;
  /** Where the Unhealthy and ProbeWarning events go; default: nowhere. */
  recorder?: EventRecorder;
  /** How a probe is run; tests replace it. Default: the real exec/httpGet/tcpSocket/grpc probes. */
  check?: ContainerChecker;
}

/** A status generator's view: (probe, container name, status containerID) → passed? */
export type ProbeStatusLookup = (probe: "readiness" | "startup", containerName: string, containerId: string) => boolean | undefined;

export interface ProbeManager {
  /** Starts the workers of every probe the pod's containers (and sidecars) define; existing ones are kept. */
  addPod(pod: Pod): void;
  /** Stops every worker of the pod (their results go with them). */
  removePod(uid: string): void;
  /** Stops the pod's liveness and startup workers (termination: nothing is restarted any more). */
  stopLivenessAndStartup(uid: string): void;
  /** Stops the workers of pods not in desired (housekeeping). */
  cleanupPods(desired: Iterable<string>): void;
  readonly updates: { liveness: Channel<ProbeUpdate>; readiness: Channel<ProbeUpdate>; startup: Channel<ProbeUpdate> };
  /** Has the container's readiness probe passed (undefined: no result yet)? When not, its worker probes at once. */
  readiness(uid: string, containerName: string, containerId: string): boolean | undefined;
  /** Did a container that started at this time (ms) run before bunlet started (10 s before the prober)? */
  ranBeforeRestart(containerStartedAtMs: number): boolean;
  /** Has the container started as far as probes go (no startup worker and no result → true)? */
  startup(uid: string, containerName: string, containerId: string): boolean;
  /** readiness/startup bound to one pod, in the shape generateAPIPodStatus takes. */
  statusLookup(uid: string): ProbeStatusLookup;
  /** Raw liveness/startup results by CRI container id, in the shape computePodActions takes. */
  readonly results: { liveness(containerId: string): ProbeResult | undefined; startup(containerId: string): ProbeResult | undefined };
  /** Number of running workers. */
  readonly workerCount: number;
  /** Stops every worker, waits for them, and closes the update channels. */
  stop(): Promise<void>;
}

const PROBE_TYPES: ProbeType[] = ["startup", "readiness", "liveness"];

function probeOf(c: Container, type: ProbeType) {
  return type === "liveness" ? c.livenessProbe : type === "readiness" ? c.readinessProbe : c.startupProbe;
}

export function createProbeManager(deps: ProbeManagerDeps): ProbeManager {
  const startedAt = deps.clock.now();
  const managers: Record<ProbeType, ResultsManager> = { liveness: new ResultsManager(), readiness: new ResultsManager(), startup: new ResultsManager() };
  const workers = new Map<string, ProbeWorker>();
  const running = new Set<Promise<void>>();
  let stopped = false;
  const keyOf = (uid: string, name: string, type: ProbeType) => `${uid}\u0000${name}\u0000${type}`;
  const uidOf = (key: string) => key.slice(0, key.indexOf("\u0000"));

  const isStarted = (uid: string, name: string, containerId: string): boolean => {
    const result = managers.startup.get(containerId);
    if (result !== undefined) return result === "Success";
    return !workers.has(keyOf(uid, name, "startup"));
  };

  const startWorker = (pod: Pod, container: Container, sidecar: boolean, type: ProbeType) => {
    const uid = podUID(pod);
    const key = keyOf(uid, container.name, type);
    if (workers.has(key)) return;
    const worker = new ProbeWorker({
      probeType: type,
      pod,
      container,
      sidecar,
      results: managers[type],
      statusProvider: deps.statusProvider,
      check: deps.check ?? checkContainer,
      isStarted: (id) => isStarted(uid, container.name, id),
      cri: deps.cri,
      clock: deps.clock,
      random: deps.random,
      managerStartedAt: startedAt,
      log: deps.log,
      metrics: deps.metrics,
      recorder: deps.recorder ?? { event: () => undefined },
    });
    workers.set(key, worker);
    const done: Promise<void> = worker
      .run()
      .catch((err) => {
        deps.log.error("Probe worker ended with an error", { probeType: type, pod: podRef(pod), containerName: container.name, err });
      })
      .finally(() => {
        if (workers.get(key) === worker) workers.delete(key);
        running.delete(done);
      });
    running.add(done);
  };

  const stopWhere = (match: (uid: string, type: ProbeType) => boolean) => {
    for (const [key, worker] of workers) if (match(uidOf(key), worker.probeType)) worker.stop();
  };

  const readiness = (uid: string, name: string, containerId: string): boolean | undefined => {
    const id = parseContainerId(containerId);
    const result = managers.readiness.get(id);
    if (result === "Success") return true;
    // Only asked for containers that define a readiness probe. Without a result (no worker yet,
    // e.g. the first status after a bunlet restart, or the probe has not run) the status
    // generator decides: not ready, unless the container ran before this bunlet started and the
    // apiserver's copy of the pod says Ready (the kubelet's setReadyStateOnKubeletRestart).
    workers.get(keyOf(uid, name, "readiness"))?.trigger(); // ask for a result now, not a period later
    return result === undefined ? undefined : false;
  };
  const startup = (uid: string, name: string, containerId: string) => isStarted(uid, name, parseContainerId(containerId));

  return {
    addPod(pod) {
      if (stopped) return;
      const sidecars = (pod.spec.initContainers ?? []).filter(isRestartableInitContainer);
      for (const [containers, sidecar] of [[pod.spec.containers, false], [sidecars, true]] as const) {
        for (const container of containers) {
          for (const type of PROBE_TYPES) if (probeOf(container, type)) startWorker(pod, container, sidecar, type);
        }
      }
    },
    removePod: (uid) => stopWhere((u) => u === uid),
    stopLivenessAndStartup: (uid) => stopWhere((u, type) => u === uid && type !== "readiness"),
    cleanupPods(desired) {
      const keep = new Set(desired);
      stopWhere((u) => !keep.has(u));
    },
    updates: { liveness: managers.liveness.updates, readiness: managers.readiness.updates, startup: managers.startup.updates },
    readiness,
    startup,
    ranBeforeRestart: (at) => ranBeforeRestart(at, startedAt),
    statusLookup: (uid) => (probe, name, containerId) => (probe === "readiness" ? readiness(uid, name, containerId) : startup(uid, name, containerId)),
    results: {
      liveness: (id) => managers.liveness.get(id),
      startup: (id) => managers.startup.get(id),
    },
    get workerCount() {
      return workers.size;
    },
    async stop() {
      stopped = true;
      for (const worker of workers.values()) worker.stop();
      await Promise.all(running);
      for (const m of Object.values(managers)) m.close();
    },
  };
}
