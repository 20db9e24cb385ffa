/**
 * One probe worker per (pod UID, container, probe type), as the kubelet's prober/worker.go: it
 * probes every periodSeconds on the injected clock (after a random part of a period when bunlet
 * has just started, so a restart does not probe every container at once) and records results in
 * its type's ResultsManager. The worker owns its container's entry there: it resets it when the
 * container id changes and removes it when it exits. doProbe is one iteration and says whether
 * to keep going. It also owns its container's prober_probe_* series: counted after each probe
 * that gave a result, removed when the worker ends (as the kubelet does).
 */
import { podRef, type Container, type Pod, type PodStatus, type Probe } from "../api/index.ts";
import type { CriClient } from "../cri/index.ts";
import { containerReference, type EventRecorder } from "../events/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import type { Metrics } from "../metrics/index.ts";
import { containerShouldRestart, type RuntimePodStatus } from "../container/index.ts";
import type { ContainerChecker, ProbeType } from "./probe-check.ts";
import type { ProbeResult, ResultsManager } from "./results.ts";

/** What a worker needs to know about its pod each period. */
export interface PodProbeView {
  /** The latest pod (deletionTimestamp, restartPolicy). */
  pod: Pod;
  /** The runtime's view of the pod (the pod cache entry). */
  podStatus: RuntimePodStatus;
  /** Default host of network probes ("" when the pod has none yet). */
  podIP: string;
  /** The API phase last computed, when known; a terminal phase ends the workers. */
  phase?: string;
}

export type StatusProvider = (uid: string) => PodProbeView | undefined;

/** What a probe worker's view of its pod is read from (the kubelet's pod manager, pod cache and status manager). */
export interface StatusSources {
  /** The desired pods. */
  pods: { get(uid: string): Pod | undefined };
  /** The PLEG's pod cache. */
  cache: { has(uid: string): boolean; get(uid: string): { status: RuntimePodStatus } };
  /** The API status last generated. */
  statuses: { getPodStatus(uid: string): PodStatus | undefined };
}

/**
 * The probe workers see what the pod workers see: the desired pod, its cached runtime status, and
 * the pod IP and phase of the last generated status (the runtime's IP before there is one).
 */
export function statusProviderFrom(sources: StatusSources): StatusProvider {
  return (uid) => {
    const pod = sources.pods.get(uid);
    if (!pod || !sources.cache.has(uid)) return undefined;
    const podStatus = sources.cache.get(uid).status;
    const apiStatus = sources.statuses.getPodStatus(uid);
    return { pod, podStatus, podIP: apiStatus?.podIP ?? podStatus.ips[0] ?? "", phase: apiStatus?.phase };
  };
}

/** The probe metrics a worker writes (served on /metrics/probes). */
export type ProbeMetrics = Pick<Metrics, "proberProbeTotal" | "proberProbeDuration">;

/** Label values as the kubelet's prober writes them. */
const PROBE_TYPE_LABEL: Record<ProbeType, string> = { liveness: "Liveness", readiness: "Readiness", startup: "Startup" };
const RESULT_LABEL: Record<ProbeResult, string> = { Success: "successful", Failure: "failed", Unknown: "unknown" };

/** The kubelet's value before the first result: not ready, alive, not yet known to have started. */
/** The kubelet's kubeletRestartGracePeriod: started more than 10 s before the prober = found running by a restart. */
export function ranBeforeRestart(startedAtMs: number, proberStartedAtMs: number): boolean {
  return startedAtMs > 0 && startedAtMs < proberStartedAtMs - 10_000;
}

const INITIAL_RESULT: Record<ProbeType, ProbeResult> = { readiness: "Failure", liveness: "Success", startup: "Unknown" };

export interface ProbeWorkerDeps {
  probeType: ProbeType;
  pod: Pod;
  container: Container;
  /** The container is a restartable init container (it restarts whatever the pod's policy). */
  sidecar: boolean;
  results: ResultsManager;
  statusProvider: StatusProvider;
  check: ContainerChecker;
  /** Started = the startup probe succeeded, or there is none (only asked of a running container). */
  isStarted: (containerId: string) => boolean;
  cri: Pick<CriClient, "runtime">;
  clock: Clock;
  random: () => number;
  /** When the probe manager started (ms); workers of a fresh bunlet start with jitter. */
  managerStartedAt: number;
  log: Logger;
  metrics: ProbeMetrics;
  recorder: EventRecorder;
}

/** The probe with the API defaults filled in, for pods that did not come through decoding. */
function withProbeDefaults(p: Probe): Required<Pick<Probe, "timeoutSeconds" | "periodSeconds" | "successThreshold" | "failureThreshold" | "initialDelaySeconds">> & Probe {
  return {
    ...p,
    timeoutSeconds: p.timeoutSeconds || 1,
    periodSeconds: p.periodSeconds || 10,
    successThreshold: p.successThreshold || 1,
    failureThreshold: p.failureThreshold || 3,
    initialDelaySeconds: p.initialDelaySeconds ?? 0,
  };
}

export class ProbeWorker {
  readonly probeType: ProbeType;
  readonly spec: ReturnType<typeof withProbeDefaults>;
  readonly #deps: ProbeWorkerDeps;
  readonly #uid: string;
  /** prober_probe_duration_seconds labels; prober_probe_total adds pod_uid and result. */
  readonly #labels: { probe_type: string; container: string; pod: string; namespace: string };
  readonly #stopper = new AbortController();
  #containerId = "";
  #lastResult: ProbeResult | undefined;
  #resultRun = 0;
  #onHold = false;
  #triggered = false;
  #wake: (() => void) | undefined;

  constructor(deps: ProbeWorkerDeps) {
    this.#deps = deps;
    this.probeType = deps.probeType;
    this.#uid = deps.pod.metadata.uid ?? "";
    const probe = deps.probeType === "liveness" ? deps.container.livenessProbe : deps.probeType === "readiness" ? deps.container.readinessProbe : deps.container.startupProbe;
    if (!probe) throw new Error(`container ${deps.container.name} has no ${deps.probeType} probe`);
    this.spec = withProbeDefaults(probe);
    this.#labels = {
      probe_type: PROBE_TYPE_LABEL[deps.probeType],
      container: deps.container.name,
      pod: deps.pod.metadata.name ?? "",
      namespace: deps.pod.metadata.namespace ?? "",
    };
  }

  get containerId(): string {
    return this.#containerId;
  }

  get stopped(): boolean {
    return this.#stopper.signal.aborted;
  }

  /** Asks the worker to end; it finishes (or abandons) the probe in flight and cleans up. */
  stop(): void {
    this.#stopper.abort(new Error("probe worker stopped"));
    this.#wake?.();
  }

  /** Runs a probe now instead of at the next tick (readiness asked for by status generation). */
  trigger(): void {
    this.#triggered = true;
    this.#wake?.();
  }

  /** The worker's loop; resolves after it stopped and removed its container's result. */
  async run(): Promise<void> {
    const { clock, random, managerStartedAt } = this.#deps;
    const signal = this.#stopper.signal;
    const periodMs = this.spec.periodSeconds * 1000;
    try {
      if (clock.now() - managerStartedAt < periodMs) {
        const jitterMs = random() * periodMs;
        if (jitterMs > 0) await this.#waitUntil(clock.now() + jitterMs, false);
      }
      let nextTick = clock.now() + periodMs;
      while (!signal.aborted && (await this.#safeProbe())) {
        const ticked = await this.#waitUntil(nextTick, true);
        // A ticker keeps its grid: ticks missed while probing are dropped, not queued.
        if (ticked) while (nextTick <= clock.now()) nextTick += periodMs;
      }
    } finally {
      if (this.#containerId) this.#deps.results.remove(this.#containerId);
      this.#removeMetrics();
    }
  }

  /** Waits until `at`, a trigger (if allowed) or stop; true when the time came. */
  #waitUntil(at: number, triggerable: boolean): Promise<boolean> {
    if (this.#stopper.signal.aborted) return Promise.resolve(false);
    if (triggerable && this.#triggered) {
      this.#triggered = false;
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      const done = (ticked: boolean) => {
        timer.cancel();
        this.#wake = undefined;
        if (!ticked) this.#triggered = false;
        resolve(ticked);
      };
      const timer = this.#deps.clock.setTimer(Math.max(0, at - this.#deps.clock.now()), () => done(true));
      this.#wake = () => {
        if (this.#stopper.signal.aborted || (triggerable && this.#triggered)) done(false);
      };
    });
  }

  async #safeProbe(): Promise<boolean> {
    try {
      return await this.doProbe();
    } catch (err) {
      if (this.#stopper.signal.aborted) return false;
      this.#deps.log.error("Probe worker failed; probing again next period", {
        probeType: this.probeType,
        pod: podRef(this.#deps.pod),
        containerName: this.#deps.container.name,
        err,
      });
      return true;
    }
  }

  /** One probe iteration (worker.go doProbe); false = the worker should end. */
  async doProbe(): Promise<boolean> {
    const { statusProvider, container, probeType } = this.#deps;
    const began = this.#deps.clock.now();
    const view = statusProvider(this.#uid);
    if (!view) return true; // not created yet, or already gone
    if (view.phase === "Failed" || view.phase === "Succeeded") return false;

    // Newest first: the first with the name is the current container.
    const status = view.podStatus.containerStatuses.find((c) => c.name === container.name);
    if (!status?.id) return true; // the container does not exist (yet)

    if (status.id !== this.#containerId) {
      if (this.#containerId) this.#deps.results.remove(this.#containerId);
      this.#containerId = status.id;
      // A new container starts from scratch: its first result and run length owe nothing to
      // its predecessor (the kubelet keeps the run length).
      this.#lastResult = undefined;
      this.#resultRun = 0;
      this.#onHold = false;
      // A container that ran before bunlet (re)started keeps what it had until its probe says
      // otherwise: an initial Failure would flip a Ready pod to not-Ready at every restart
      // (the kubelet's isRestart, kubernetes#100277).
      if (!(status.state === "running" && ranBeforeRestart(status.startedAt, this.#deps.managerStartedAt))) await this.#set(INITIAL_RESULT[probeType]);
    }
    if (this.#onHold) return true; // until a new container replaces the failed one

    if (status.state !== "running") {
      await this.#set("Failure");
      // An exited container that will not be restarted needs no more probing.
      // (Its restart rules on the exit code, its own policy, else the pod's: ContainerRestartRules.)
      return status.state !== "exited" || this.#deps.sidecar || containerShouldRestart(container, view.pod, status.exitCode);
    }

    if (view.pod.metadata.deletionTimestamp && (probeType === "liveness" || probeType === "startup")) {
      // The pod is going away: a last success keeps the kill quiet, and probing stops.
      await this.#set("Success");
      return false;
    }

    const now = this.#deps.clock.now();
    if (Math.floor((now - status.startedAt) / 1000) < this.spec.initialDelaySeconds) return true;

    const started = this.#deps.isStarted(status.id);
    if (started && probeType === "startup") return true; // kept alive for the next container
    if (!started && probeType !== "startup") return true; // liveness and readiness wait for Started

    const result = await this.#deps.check({
      probeType,
      spec: this.spec,
      container,
      pod: podRef(view.pod),
      podUID: this.#uid,
      target: { cri: this.#deps.cri, containerId: status.id, container, podIP: view.podIP, clock: this.#deps.clock, signal: this.#stopper.signal },
      log: this.#deps.log,
      event: (type, reason, message) => {
        const ref = containerReference(view.pod, container);
        if (ref) this.#deps.recorder.event(ref, type, reason, message);
      },
    });
    if (result === undefined) return true; // the probe could not run: no result, not counted
    this.#observe(result, began);

    if (this.#lastResult === result) this.#resultRun++;
    else {
      this.#lastResult = result;
      this.#resultRun = 1;
    }
    if ((result === "Failure" && this.#resultRun < this.spec.failureThreshold) || (result === "Success" && this.#resultRun < this.spec.successThreshold)) {
      return true; // below the threshold: the recorded result stands
    }
    await this.#set(result);
    if ((probeType === "liveness" || probeType === "startup") && result === "Failure") {
      // The container will be killed; probing it meanwhile is pointless (and exec into a
      // stopping container is fragile), so hold until a new container id appears.
      this.#onHold = true;
      this.#resultRun = 0;
    }
    return true;
  }

  /**
   * Every result is counted; the duration (from the start of this iteration) is recorded for
   * successful and unknown results only, as the kubelet records it.
   */
  #observe(result: ProbeResult, began: number): void {
    const { metrics, clock } = this.#deps;
    metrics.proberProbeTotal.inc({ ...this.#labels, pod_uid: this.#uid, result: RESULT_LABEL[result] });
    if (result !== "Failure") metrics.proberProbeDuration.observe(this.#labels, (clock.now() - began) / 1000);
  }

  #removeMetrics(): void {
    const { metrics } = this.#deps;
    for (const result of Object.values(RESULT_LABEL)) metrics.proberProbeTotal.remove({ ...this.#labels, pod_uid: this.#uid, result });
    metrics.proberProbeDuration.remove(this.#labels);
  }

  #set(result: ProbeResult): Promise<void> {
    return this.#deps.results.set(
      { podUID: this.#uid, containerId: this.#containerId, containerName: this.#deps.container.name, result },
      { signal: this.#stopper.signal },
    );
  }
}
