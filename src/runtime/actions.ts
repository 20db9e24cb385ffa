/**
 * computePodActions: the pure plan of SyncPod. Given the pod spec and what the runtime holds, it
 * says whether to (re)create the sandbox, which containers to kill (with why) and which init,
 * regular and ephemeral containers to start. Nothing here touches the runtime.
 */
import type { Container, Pod } from "../api/index.ts";
import {
  containerChanged,
  containerSucceeded,
  podRestartPolicy,
  podSandboxChanged,
  restartOnFailure,
  shouldContainerBeRestarted,
  shouldRestartOnFailure,
  findContainerStatus,
  type RuntimePodStatus,
} from "../container/index.ts";
import { probesAlwaysSucceed, type KillReason, type PodActions, type ProbeResultsView } from "./actions-types.ts";
import { computeInitContainerActions } from "./init-actions.ts";
import { addKill } from "./kill-list.ts";
import { computePodResizeAction, resourceValues, sameResourceValues, type ActuatedResources } from "./resize-actions.ts";

/**
 * `actuated` (what the runtime was last told per container) enables in-place resize: a running
 * container whose allocated resources differ is updated, or restarted under RestartContainer.
 */
export function computePodActions(
  pod: Pod,
  podStatus: RuntimePodStatus,
  probes: ProbeResultsView = probesAlwaysSucceed,
  actuated?: ActuatedResources,
): PodActions {
  const sandbox = podSandboxChanged(pod, podStatus);
  const changes: PodActions = {
    killPod: sandbox.changed,
    createSandbox: sandbox.changed,
    sandboxId: sandbox.sandboxId,
    attempt: sandbox.attempt,
    initContainersToStart: [],
    containersToStart: [],
    ephemeralContainersToStart: [],
    containersToKill: [],
  };
  if (sandbox.changed) return planNewSandbox(pod, podStatus, changes);

  // Ephemeral containers start even before initialization completes, and never restart.
  (pod.spec.ephemeralContainers ?? []).forEach((c, i) => {
    if (!findContainerStatus(podStatus, c.name)) changes.ephemeralContainersToStart.push(i);
  });

  const initialized = computeInitContainerActions(pod, podStatus, probes, changes, actuated);
  if (changes.killPod || !initialized) return changes;

  let keepCount = 0;
  pod.spec.containers.forEach((container, idx) => {
    const status = findContainerStatus(podStatus, container.name);
    if (!status || status.state !== "running") {
      if (shouldContainerBeRestarted(container, pod, podStatus)) {
        changes.containersToStart.push(idx);
        // An unknown container may still run: stop it first so two instances never coexist.
        if (status?.state === "unknown") {
          addKill(changes, status, `Container is in "unknown" state, try killing it before restart`, "Unknown");
        }
      }
      return;
    }
    let message: string;
    let reason: KillReason = "";
    // A running container has no exit code for its rules: only its own policy, else the pod's.
    let restart = restartOnFailure(pod, container);
    if (containerChanged(container, status.hash)) {
      message = `Container ${container.name} definition changed`;
      restart = true; // a new definition runs whatever the restart policy
    } else if (probes.liveness(status.id) === "Failure") {
      message = `Container ${container.name} failed liveness probe`;
      reason = "LivenessProbe";
    } else if (probes.startup(status.id) === "Failure") {
      message = `Container ${container.name} failed startup probe`;
      reason = "StartupProbe";
    } else if (actuated !== undefined && !computePodResizeAction(pod, idx, false, status, actuated, changes)) {
      // The resize policy restarts it: it is already in the kill list.
      changes.containersToStart.push(idx);
      return;
    } else {
      keepCount++;
      return;
    }
    if (restart) {
      message += ", will be restarted";
      changes.containersToStart.push(idx);
    }
    addKill(changes, status, message, reason);
  });

  if (keepCount === 0 && changes.containersToStart.length === 0) {
    // Nothing is left to run: stop the pod, and do not let sidecars keep it alive.
    changes.killPod = true;
    changes.initContainersToStart = [];
  }
  // A container (re)started with resources other than it last ran with changes the pod's total:
  // the pod cgroup follows (startingResizedContainer).
  if (actuated !== undefined && !changes.updatePodResources) {
    const uid = pod.metadata.uid ?? "";
    const resized = changes.containersToStart.some((i) => {
      const c = pod.spec.containers[i]!;
      return !sameResourceValues(resourceValues(c.resources), resourceValues(actuated(uid, c.name)));
    });
    if (resized) changes.updatePodResources = true;
  }
  return changes;
}

/** The sandbox must be (re)created: everything restarts from the beginning, unless the pod is done. */
function planNewSandbox(pod: Pod, podStatus: RuntimePodStatus, changes: PodActions): PodActions {
  // Under Never, a pod whose containers already ran is finished: kill it, do not recreate it.
  // Without any container status we assume none was ever created and retry the sandbox.
  if (!shouldRestartOnFailure(pod) && changes.attempt !== 0 && podStatus.containerStatuses.length !== 0) {
    changes.createSandbox = false;
    return changes;
  }
  // A container that runs until it succeeds (its own OnFailure, else the pod's) and did, stays done.
  const runOnce = (c: Container) => (c.restartPolicy ?? podRestartPolicy(pod)) === "OnFailure";
  const toStart = pod.spec.containers.flatMap((c, i) => (runOnce(c) && containerSucceeded(c, podStatus) ? [] : [i]));
  if (toStart.length === 0 && hasAnyRegularContainerCreated(pod, podStatus)) {
    // Initialized, and every container succeeded: nothing needs a sandbox any more.
    changes.createSandbox = false;
    return changes;
  }
  if ((pod.spec.initContainers ?? []).length > 0) {
    changes.initContainersToStart = [0];
    return changes;
  }
  changes.containersToStart = toStart;
  return changes;
}

function hasAnyRegularContainerCreated(pod: Pod, podStatus: RuntimePodStatus): boolean {
  return pod.spec.containers.some((c) => {
    const s = findContainerStatus(podStatus, c.name);
    return s !== undefined && s.state !== "unknown";
  });
}
