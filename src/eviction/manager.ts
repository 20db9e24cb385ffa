/**
 * The eviction manager (pkg/kubelet/eviction/eviction_manager.go synchronize): every
 * evictionMonitoringPeriod (10 s) it observes the node's signals from the Summary API, keeps the
 * pressure conditions (MemoryPressure, DiskPressure, PIDPressure) that node status reports, and
 * once a threshold is met past its grace period, first reclaims node-level resources for disk
 * signals (dead containers, unused images) and, if the pressure stays, evicts one pod per round:
 * the first of the kubelet's ranking that is not critical, killed with the kubelet's grace
 * period, status Failed, reason Evicted and the kubelet's message. As the kubelet, it records an
 * EvictionThresholdMet event on the node when it starts to reclaim, and an Evicted event (with the
 * offending containers as annotations) on each pod it evicts.
 */
import { isCriticalPod, kObj, type Pod, type PodStatus } from "../api/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import { evaluate, hasNodeLevelReclaim, initialState, SIGNAL_RESOURCE, thresholdsMet, type EvictionState, type NodeCondition } from "./policy.ts";
import { hasLocalStorageLimit, localStorageViolation } from "./local-storage.ts";
import { evictionMessage, rankForEviction, type PodUsage } from "./rank.ts";
import { makeSignalObservations, type NodeSummary, type Observations } from "./signals.ts";
import { formatThresholdValue, type Threshold } from "./thresholds.ts";

/** evictionMonitoringPeriod. */
const MONITORING_PERIOD_MS = 10_000;
/** The reason of an evicted pod's status and of its event (eviction.Reason). */
const EVICTED = "Evicted";
/** immediateEvictionGracePeriodSeconds: a hard threshold's grace period. */
const IMMEDIATE_GRACE_PERIOD_SECONDS = 1;

export interface EvictionSummary {
  node: NodeSummary;
  pods: (PodUsage & { podRef: { uid: string } })[];
}

export interface EvictionDeps {
  /**
   * The stats summary; `withPods` false may leave `pods` empty (the node's figures are all the
   * thresholds read, and only a round that ranks pods or checks their limits needs theirs).
   */
  summary(signal: AbortSignal, withPods: boolean): Promise<EvictionSummary>;
  /** The pods that may be evicted: admitted, not terminating or terminated. */
  activePods(): Pod[];
  /** Whether the pod came from a file or URL (a static pod, critical to the kubelet). */
  isStatic(pod: Pod): boolean;
  /** Kills the pod as an eviction and resolves once it has no running containers. */
  killPod(pod: Pod, gracePeriodSeconds: number, statusFn: (status: PodStatus) => void): Promise<void>;
  /** Node-level reclaim for disk pressure. */
  reclaim: { deleteAllUnusedContainers(signal: AbortSignal): Promise<void>; deleteUnusedImages(signal: AbortSignal): Promise<number> };
  onEvicted(signal: string): void;
  /** Records a Warning event about the node (the kubelet's nodeRef). */
  nodeWarning(reason: string, message: string): void;
  /** Records a Warning event about a pod, with annotations (the recorder's AnnotatedEventf). */
  podWarning(pod: Pod, reason: string, message: string, annotations: Record<string, string>): void;
  clock: Clock;
  log: Logger;
}

export interface EvictionOptions {
  thresholds: Threshold[];
  pressureTransitionPeriodMs: number;
  maxPodGracePeriodSeconds: number;
  /** bunlet: evict static pods too (standalone nodes, where every pod is static). */
  evictStaticPods: boolean;
  /** Evict pods past their ephemeral-storage limits (the kubelet's localStorageCapacityIsolation, default on). */
  localStorageCapacityIsolation: boolean;
}

export class EvictionManager {
  readonly #deps: EvictionDeps;
  readonly #opts: EvictionOptions;
  #state: EvictionState = initialState();
  #conditions = new Set<NodeCondition>();

  constructor(deps: EvictionDeps, opts: EvictionOptions) {
    this.#deps = deps;
    this.#opts = opts;
  }

  /** The pressure conditions node status reports. */
  pressure(): { memory: boolean; disk: boolean; pid: boolean } {
    return { memory: this.#conditions.has("MemoryPressure"), disk: this.#conditions.has("DiskPressure"), pid: this.#conditions.has("PIDPressure") };
  }

  async run(signal: AbortSignal): Promise<void> {
    const { clock, log } = this.#deps;
    if (this.#opts.thresholds.length === 0 && !this.#opts.localStorageCapacityIsolation) {
      log.info("Eviction manager: no eviction thresholds configured; not monitoring resources");
      return;
    }
    while (!signal.aborted) {
      try {
        await this.synchronize(signal);
      } catch (err) {
        if (signal.aborted) return;
        log.error("Eviction manager: failed to synchronize; retrying at the next monitoring period", { err });
      }
      try {
        await clock.sleep(MONITORING_PERIOD_MS, signal);
      } catch {
        return;
      }
    }
  }

  /** One round; returns the evicted pod, if any. */
  async synchronize(signal: AbortSignal): Promise<Pod | undefined> {
    const { clock, log } = this.#deps;
    // The kubelet reads one summary a round from cadvisor's cache; bunlet's summary asks the
    // runtime and walks the pods' directories, so the pods' part is read only when a pod has a
    // limit to check, or below once a threshold is met and pods are ranked.
    const checkLimits = this.#opts.localStorageCapacityIsolation && this.#deps.activePods().some(hasLocalStorageLimit);
    let summary = await this.#deps.summary(signal, checkLimits);
    const observations = makeSignalObservations(summary.node);
    const round = evaluate(this.#opts.thresholds, observations, this.#state, clock.now(), this.#opts.pressureTransitionPeriodMs);
    this.#state = round.state;
    this.#conditions = round.conditions;
    // Limits first: a round that evicts for them does nothing else (as the kubelet's).
    if (checkLimits) {
      const evicted = await this.#localStorageEviction(summary);
      if (evicted) return evicted;
    }
    if (round.actOn.length === 0) {
      log.debug("Eviction manager: no resources are starved", {}, 3);
      return undefined;
    }
    const threshold = round.actOn[0];
    const resource = SIGNAL_RESOURCE[threshold.signal];
    log.info("Eviction manager: attempting to reclaim", { resourceName: resource });
    this.#deps.nodeWarning("EvictionThresholdMet", `Attempting to reclaim ${resource}`);

    if (hasNodeLevelReclaim(threshold.signal) && (await this.#reclaimNodeLevel(signal))) {
      log.info("Eviction manager: able to reduce resource pressure without evicting pods.", { resourceName: resource });
      return undefined;
    }
    log.info("Eviction manager: must evict pod(s) to reclaim", { resourceName: resource });
    const active = this.#deps.activePods();
    if (active.length === 0) {
      log.error("Eviction manager: eviction thresholds have been met, but no pods are active to evict");
      return undefined;
    }
    if (!checkLimits) summary = await this.#deps.summary(signal, true);
    const statsByUid = new Map(summary.pods.map((p) => [p.podRef.uid, p]));
    const stats = (uid: string) => statsByUid.get(uid);
    const ranked = rankForEviction(threshold.signal, active, stats);
    log.info("Eviction manager: pods ranked for eviction", { pods: ranked.map((p) => kObj(p.metadata)) });
    for (const pod of ranked) {
      if (isCriticalPod(pod, this.#deps.isStatic(pod) && !this.#opts.evictStaticPods)) {
        log.error("Eviction manager: cannot evict a critical pod", { pod: kObj(pod.metadata) });
        continue;
      }
      const { message, annotations } = evictionMessage(resource, pod, stats(pod.metadata.uid ?? ""), this.#thresholdMetInfo(resource, round.actOn, observations));
      this.#deps.podWarning(pod, EVICTED, message, annotations);
      await this.#evict(pod, this.#gracePeriod(threshold, pod), message);
      this.#deps.onEvicted(threshold.signal);
      return pod;
    }
    return undefined;
  }

  /** Evicts every pod past an ephemeral-storage limit at once (grace 1 s, no DisruptionTarget); returns the first. */
  async #localStorageEviction(summary: EvictionSummary): Promise<Pod | undefined> {
    const statsByUid = new Map(summary.pods.map((p) => [p.podRef.uid, p]));
    let first: Pod | undefined;
    for (const pod of this.#deps.activePods()) {
      const stats = statsByUid.get(pod.metadata.uid ?? "");
      const violation = stats && localStorageViolation(pod, stats);
      if (!violation) continue;
      if (isCriticalPod(pod, this.#deps.isStatic(pod) && !this.#opts.evictStaticPods)) {
        this.#deps.log.error("Eviction manager: cannot evict a critical pod", { pod: kObj(pod.metadata) });
        continue;
      }
      this.#deps.podWarning(pod, EVICTED, violation.message, {});
      await this.#evict(pod, IMMEDIATE_GRACE_PERIOD_SECONDS, violation.message, false);
      this.#deps.onEvicted(violation.signal);
      first ??= pod;
    }
    return first;
  }

  /** Removes dead containers and unused images, then asks whether the thresholds acted on are still met. */
  async #reclaimNodeLevel(signal: AbortSignal): Promise<boolean> {
    const { reclaim, log } = this.#deps;
    try {
      await reclaim.deleteAllUnusedContainers(signal);
      await reclaim.deleteUnusedImages(signal);
    } catch (err) {
      log.error("Eviction manager: node-level reclaim failed", { err });
    }
    const observations = makeSignalObservations((await this.#deps.summary(signal, false)).node);
    return thresholdsMet(this.#state.thresholdsMet, observations, true).length === 0;
  }

  #gracePeriod(threshold: Threshold, pod: Pod): number {
    if (threshold.hard) return IMMEDIATE_GRACE_PERIOD_SECONDS;
    const own = pod.spec?.terminationGracePeriodSeconds;
    const max = this.#opts.maxPodGracePeriodSeconds;
    return own !== undefined && own !== null ? Math.min(max, own) : max;
  }

  #thresholdMetInfo(resource: string, thresholds: readonly Threshold[], observations: Observations): { quantity: string; available: bigint } | undefined {
    for (const t of thresholds) {
      if (SIGNAL_RESOURCE[t.signal] !== resource) continue;
      const observed = observations.get(t.signal);
      if (observed) return { quantity: formatThresholdValue(t.value, observed.capacity), available: observed.available };
    }
    return undefined;
  }

  async #evict(pod: Pod, gracePeriodSeconds: number, message: string, disruptionTarget = true): Promise<void> {
    const { log, clock } = this.#deps;
    const ref = kObj(pod.metadata);
    log.debug("Evicting pod", { pod: ref, podUID: pod.metadata.uid ?? "", message }, 3);
    const statusFn = (status: PodStatus) => {
      status.phase = "Failed";
      status.reason = EVICTED;
      status.message = message;
      if (!disruptionTarget) return;
      const conditions = (status.conditions ?? []).filter((c) => c.type !== "DisruptionTarget");
      conditions.push({ type: "DisruptionTarget", status: "True", reason: "TerminationByKubelet", message, lastTransitionTime: new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z") });
      status.conditions = conditions;
    };
    try {
      await this.#deps.killPod(pod, gracePeriodSeconds, statusFn);
      log.info("Eviction manager: pod is evicted successfully", { pod: ref });
    } catch (err) {
      log.error("Eviction manager: pod failed to evict", { err, pod: ref });
    }
  }
}
