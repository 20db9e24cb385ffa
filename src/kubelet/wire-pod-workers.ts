/**
 * The pod workers and the pod syncer they run (pod_workers.go and kubelet.go SyncPod and its
 * siblings): the syncer computes each pod's API status with the status generator and hands the
 * CRI work to the runtime manager; the workers keep one serialized worker per pod. Once made,
 * the workers are connected to the PodWorkersRef the earlier parts hold. Shutdown abandons what
 * the workers were doing; no pod is killed.
 */
import type { BunletConfig } from "../config/index.ts";
import { createPodWorkers, type PodSyncer, type PodWorkers } from "../podworkers/index.ts";
import { createPodSyncer, withAllocatedResources, type PodWorkersRef } from "../podsync/index.ts";
import { createStatusGenerator } from "../status/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";
import type { PodPolicy } from "./wire-pod-policy.ts";
import type { PodOptions } from "./wire-pods.ts";
import type { RuntimeParts } from "./wire-runtime.ts";

export function wirePodSyncer(base: WireBase, rt: RuntimeParts, opts: PodOptions, policy: PodPolicy, workers: PodWorkersRef): PodSyncer {
  const { clock, log, metrics } = base;
  const { runtime, probeManager } = rt;
  const generateStatus = createStatusGenerator({
    statusManager: opts.statusManager,
    waitingReason: (uid, name) => runtime.getContainerWaitingReason(uid, name),
    probeResult: (uid) => probeManager.statusLookup(uid),
    ranBeforeRestart: (at) => probeManager.ranBeforeRestart(at),
    actuatedResources: (uid, name) => runtime.actuatedResources(uid, name),
    hostIPs: opts.hostIPs,
    podSyncHandlers: [policy.activeDeadline],
    clock,
  });
  return createPodSyncer({
    runtime,
    statusManager: opts.statusManager,
    generateStatus,
    podDirs: policy.podDirs,
    podManager: opts.podManager,
    probeManager,
    isTerminationRequested: (uid) => workers.isPodTerminationRequested(uid),
    networkNotReady: () => rt.runtimeState.networkError(),
    recorder: opts.recorder,
    mirrorPods: policy.mirrorPods,
    mountVolumes: (pod, signal) => opts.volumes.waitForAttachAndMount(pod, signal),
    unmountVolumes: (uid) => opts.volumes.unmountPodVolumes(uid),
    requestPodRelist: (uid) => rt.pleg.requestPodRelist(uid),
    requestPodReinspect: (uid) => rt.pleg.requestPodReinspect(uid),
    resize: policy.allocation,
    podCgroups: policy.podCgroups,
    releaseUserNamespace: (uid) => rt.userns.release(uid),
    clock,
    log,
    metrics,
  });
}

export function wirePodWorkers(config: BunletConfig, base: WireBase, rt: RuntimeParts, syncer: PodSyncer, policy: PodPolicy, stack: AsyncDisposableStack): PodWorkers {
  const { clock, log, metrics, random, signal } = base;
  const own = createPodWorkers({ syncer, cache: rt.cache, workQueue: policy.workQueue, clock, random, log, metrics, resyncIntervalMs: config.syncFrequencyMs, signal });
  deferLogged(stack, log, "pod workers", () => own.stop());
  return withAllocatedResources(own, policy.allocation.manager);
}
