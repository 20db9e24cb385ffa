/**
 * createRuntimeManager: the runtime manager other subsystems use. It owns the crash-loop and image
 * backoffs, the reason cache (the last start failure per container) and the last start timeline
 * of each pod; everything else it does through CRI calls.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { podRef, type Pod, type ResourceRequirements } from "../api/index.ts";
import type { CriClient } from "../cri/index.ts";
import type { EventRecorder } from "../events/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import type { Metrics } from "../metrics/index.ts";
import { createSubpather, type Subpather } from "../subpath/index.ts";
import type { RuntimePodStatus, RuntimePod } from "../container/index.ts";
import { probesAlwaysSucceed, type ProbeResultsView } from "./actions-types.ts";
import { newCrashLoopBackoff } from "./crashloop.ts";
import { hostDnsConfig, type ClusterDns, type DnsConfig } from "./dns.ts";
import type { EnvObjects } from "./env.ts";
import { cleanUpContainersInPod, garbageCollect } from "./gc.ts";
import { createImageManager } from "./images.ts";
import { killPodWithSyncResult } from "./kill.ts";
import { ReasonCache, type PodSyncResult } from "./result.ts";
import { runtimeStatus, type RuntimeStatusSummary } from "./runtime-status.ts";
import { isPodResizeInProgress } from "./resize-progress.ts";
import type { ActuatedStore, PodCgroupResizer } from "./resize.ts";
import type { ImagePullTimes } from "./images.ts";
import { syncPod, type InitContainerTimes, type SyncDeps } from "./sync.ts";
import type { StartTimeline } from "./timeline.ts";
import { getPodStatus, runtimeViews, type RuntimeViews } from "./views.ts";
import { noUserNamespaces, type UserNamespaceSource } from "./userns.ts";

export interface RuntimeManagerDeps {
  cri: CriClient;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  /**
   * The CRI runtime handler for a pod's spec.runtimeClassName (the RuntimeClass manager); throws
   * when the class is unknown. Default: every pod gets the runtime's default handler.
   */
  runtimeHandler?: (pod: Pod) => string;
  /** Where the kubelet's container, image and sandbox events go; default: nowhere. */
  recorder?: EventRecorder;
  /** Random source in [0, 1) for termination-message file names. Default: node:crypto. */
  random?: () => number;
  podLogsDir: string;
  containerLogsDir: string;
  podsDir: string;
  nodeName: string;
  /** Resolver settings for ClusterFirst/Default pods; default: the host's /etc/resolv.conf. */
  dnsConfig?: DnsConfig;
  /** resolvConf: the file the node resolver settings come from when dnsConfig is absent; "" = none. */
  resolvConf?: string;
  /** The node's IPs, for the downward API's status.hostIP(s). */
  hostIPs?: string[];
  /** Liveness/startup results from the prober; default: every probe passes. */
  probeResults?: ProbeResultsView;
  /** Seccomp profiles for Localhost; default: <podsDir>/../seccomp. */
  seccompRoot?: string;
  /** --cluster-dns / --cluster-domain: ClusterFirst pods' resolver and the managed /etc/hosts. */
  /** The pod cgroup the container manager made for the pod (RunPodSandbox's cgroup_parent); none = the runtime's default. */
  podCgroupParent?: (pod: Pod) => string;
  clusterDns?: ClusterDns;
  /** ConfigMaps, Secrets and Services for env vars; absent when standalone. */
  envObjects?: EnvObjects;
  /** subPath bind mounts; default: the real one (mount(8) under the pod directory). */
  subpather?: Subpather;
  /** The actuated resources checkpoint; enables in-place resize (without it resources never change in place). */
  actuated?: ActuatedStore;
  /** The pod cgroup a resize changes (src/cm); undefined when bunlet runs no pod cgroups. */
  podCgroup?: PodCgroupResizer;
  /** The pod startup latency tracker: told of image pulls and of init containers' run times. */
  startupLatency?: ImagePullTimes & InitContainerTimes;
  /**
   * The user namespace manager's GetOrCreateUserNamespaceMappings (src/userns). Default: every
   * pod in the node's namespace, and a `hostUsers: false` pod refused.
   */
  userNamespace?: UserNamespaceSource;
}

/** Every call that reaches the runtime takes the caller's signal, so none can hold shutdown. */
interface Opts {
  signal: AbortSignal;
}

/** getPods: every sandbox and container by default; `all: false` only ready sandboxes and running containers. */
export interface RuntimeManager extends RuntimeViews {
  syncPod(pod: Pod, podStatus: RuntimePodStatus, opts: Opts): Promise<PodSyncResult>;
  /**
   * Kill all containers (parallel, preStop hooks) then stop all sandboxes. pod may be undefined for an orphan (rebuild
   * grace/preStop from annotations); gracePeriodOverride (seconds) replaces the pod's grace period.
   */
  killPod(pod: Pod | undefined, runningPod: RuntimePod, opts: Opts & { gracePeriodOverride?: number }): Promise<PodSyncResult>;
  /** After ContainerDied: remove dead containers of the pod beyond the newest one per container name (minDeadContainerInPod = 1); all of them if removeAll. */
  cleanUpContainersInPod(uid: string, opts: Opts & { removeAll?: boolean }): Promise<void>;
  /** Container GC (every 1 min by the caller): MaxPerPodContainer=1, remove exited sandboxes (and their containers) of pods for which isPodGone(uid) is true. */
  garbageCollect(isPodGone: (uid: string) => boolean, opts: Opts): Promise<void>;
  /** The last SyncPod failure reason per container of a pod (the kubelet's reasonCache). Cleared when it starts successfully. */
  getContainerWaitingReason(uid: string, containerName: string): { reason: string; message: string } | undefined;
  /** Drop backoff and reason entries of a pod (terminated pods). */
  forgetPod(uid: string): void;
  /** CRI Status: runtime and network readiness, and the runtime's handlers with their features. */
  runtimeStatus(opts: Opts): Promise<RuntimeStatusSummary>;
  /** Per-step timings (ms) of the pod's last start (pull, sandbox, <container>.create/.start). */
  lastStartTimeline(uid: string): Record<string, number> | undefined;
  /** A running container's actuated resources differ from its allocation (the pod carries it). */
  isPodResizeInProgress(allocatedPod: Pod, podStatus: RuntimePodStatus): boolean;
  /** The resources the runtime was last told for a container (the actuated checkpoint). */
  actuatedResources(uid: string, containerName: string): ResourceRequirements | undefined;
}

function randomHexFrom(random: (() => number) | undefined): () => string {
  if (!random) return () => randomBytes(4).toString("hex");
  return () => Math.floor(random() * 0x1_0000_0000).toString(16).padStart(8, "0");
}

export function createRuntimeManager(deps: RuntimeManagerDeps): RuntimeManager {
  const { cri, clock, log, metrics } = deps;
  const reasons = new ReasonCache();
  const timelines = new Map<string, StartTimeline>();
  // Crash-loop keys start with `<name>_<ns>_<uid>_`; remembered per uid so forgetPod can drop them.
  const crashLoopPrefixes = new Map<string, string>();
  const crashLoopBackoff = newCrashLoopBackoff(clock);
  const recorder: EventRecorder = deps.recorder ?? { event: () => undefined };
  const { envObjects } = deps;
  const images = createImageManager({
    cri,
    clock,
    log,
    recorder,
    pullSecret: envObjects && ((ns, name, signal) => envObjects.secret(ns, name, signal)),
    pullTimes: deps.startupLatency,
    metrics,
  });
  const runtimeHandler = deps.runtimeHandler ?? (() => "");
  const userNamespace = deps.userNamespace ?? noUserNamespaces;
  const podIPs = async (uid: string, name: string, namespace: string, signal: AbortSignal) =>
    (await getPodStatus(cri, uid, name, namespace, { signal })).ips;

  const syncDeps: SyncDeps = {
    cri,
    clock,
    log,
    metrics,
    recorder,
    runtimeHandler,
    images,
    podIPs,
    crashLoopBackoff,
    initContainerTimes: deps.startupLatency,
    probes: deps.probeResults ?? probesAlwaysSucceed,
    podLogsDir: deps.podLogsDir,
    containerLogsDir: deps.containerLogsDir,
    podsDir: deps.podsDir,
    seccompRoot: deps.seccompRoot ?? join(deps.podsDir, "..", "seccomp"),
    cgroupV2: existsSync("/sys/fs/cgroup/cgroup.controllers"),
    randomHex: randomHexFrom(deps.random),
    env: {
      nodeName: deps.nodeName,
      hostIPs: deps.hostIPs ?? [],
      cpuCapacityMilli: cpus().length * 1000,
      memoryCapacity: totalmem(),
      objects: deps.envObjects,
    },
    clusterDomain: deps.clusterDns?.domain ?? "",
    subpather: deps.subpather ?? createSubpather({ log }),
    sandbox: { podLogsDir: deps.podLogsDir, nodeDns: deps.dnsConfig ?? hostDnsConfig(deps.resolvConf), clusterDns: deps.clusterDns ?? { servers: [], domain: "" }, podCgroupParent: deps.podCgroupParent, userNamespace: (pod) => userNamespace(pod, runtimeHandler(pod)) },
    pendingStart: (uid) => (timelines.get(uid)?.pending ? timelines.get(uid) : undefined),
    recordTimeline: (uid, timeline) => timelines.set(uid, timeline),
    actuated: deps.actuated,
    podCgroup: deps.podCgroup,
    memoryUsage: async (containerId, signal) => {
      const res = await cri.runtime.listContainerStats({ filter: { id: containerId } }, { signal });
      const memory = res.stats.find((st) => st.attributes?.id === containerId)?.memory;
      // usage_bytes as the kubelet reads it; a runtime that reports only the working set gives that.
      return memory?.usageBytes?.value ?? memory?.workingSetBytes?.value;
    },
  };

  return {
    ...runtimeViews(cri),
    async syncPod(pod, podStatus, opts) {
      const { name, namespace, uid = "" } = pod.metadata;
      crashLoopPrefixes.set(uid, `${name}_${namespace}_${uid}_`);
      deps.actuated?.initializePod(pod);
      const result = await syncPod(syncDeps, pod, podStatus, opts.signal);
      reasons.update(uid, result.steps);
      if (result.error) log.debug("SyncPod finished with an error", { pod: podRef(pod), err: result.error }, 2);
      return result;
    },
    killPod: (pod, runningPod, opts) => killPodWithSyncResult(syncDeps, pod, runningPod, opts.gracePeriodOverride, opts.signal),
    cleanUpContainersInPod: (uid, opts) => cleanUpContainersInPod(syncDeps, uid, opts.removeAll ?? false, opts),
    async garbageCollect(isPodGone, opts) {
      crashLoopBackoff.gc();
      images.gc();
      await garbageCollect(syncDeps, isPodGone, opts);
    },
    getContainerWaitingReason: (uid, name) => reasons.get(uid, name),
    forgetPod(uid) {
      reasons.forget(uid);
      timelines.delete(uid);
      images.forgetPod(uid);
      const prefix = crashLoopPrefixes.get(uid);
      if (prefix) crashLoopBackoff.resetPrefix(prefix);
      crashLoopPrefixes.delete(uid);
    },
    runtimeStatus: (opts) => runtimeStatus(cri, opts),
    lastStartTimeline: (uid) => timelines.get(uid)?.toJSON(),
    isPodResizeInProgress: (pod, podStatus) => (deps.actuated ? isPodResizeInProgress(pod, podStatus, (u, n) => deps.actuated!.get(u, n)) : false),
    actuatedResources: (uid, name) => deps.actuated?.get(uid, name),
  };
}
