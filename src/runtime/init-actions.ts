/**
 * computeInitContainerActions (sidecar-aware): decides which init containers to (re)start and
 * whether the pod has finished initializing. It walks the init containers backwards, because
 * completed init containers may have been garbage collected: the newest evidence (the last init
 * container that has a status) tells where initialization stands.
 */
import type { Pod } from "../api/index.ts";
import {
  containerChanged,
  isInitContainerFailed,
  isRestartableInitContainer,
  restartOnFailure,
  shouldContainerBeRestarted,
  findContainerStatus,
  type RuntimePodStatus,
} from "../container/index.ts";
import type { PodActions, ProbeResultsView } from "./actions-types.ts";
import { addKill } from "./kill-list.ts";
import { computePodResizeAction, type ActuatedResources } from "./resize-actions.ts";

/** Updates changes in place; returns whether the pod has been initialized. */
export function computeInitContainerActions(
  pod: Pod,
  podStatus: RuntimePodStatus,
  probes: ProbeResultsView,
  changes: PodActions,
  actuated?: ActuatedResources,
): boolean {
  const inits = pod.spec.initContainers ?? [];
  if (inits.length === 0) return true;

  // A regular container that was created or is running proves initialization happened, even if
  // the init containers are gone. Exited ones do not: after a node reboot every container is
  // exited and the new sandbox must initialize again.
  let podHasInitialized = pod.spec.containers.some((c) => {
    const s = findContainerStatus(podStatus, c.name);
    return s !== undefined && (s.state === "created" || s.state === "running");
  });
  let previouslyInitialized = podHasInitialized;
  const last = inits.length - 1;
  const toStart: number[] = [];

  for (let i = last; i >= 0; i--) {
    const container = inits[i];
    const sidecar = isRestartableInitContainer(container);
    const status = findContainerStatus(podStatus, container.name);
    if (!status) {
      // Its status was removed after the pod initialized: only a sidecar has to come back.
      if (previouslyInitialized && sidecar) toStart.push(i);
      continue;
    }
    // After initialization only sidecars are kept running.
    if (previouslyInitialized && !sidecar) continue;

    switch (status.state) {
      case "created":
        // Create and start happen in one step; a container stuck in created failed to start.
        toStart.push(i);
        break;
      case "running": {
        if (!sidecar) {
          // A regular init container: wait for it to finish (resized in place meanwhile).
          if (actuated !== undefined) computePodResizeAction(pod, i, true, status, actuated, changes);
          break;
        }
        if (container.startupProbe) {
          const startup = probes.startup(status.id);
          if (startup === undefined) break; // the startup probe has not run yet: wait
          if (startup !== "Success") {
            if (startup === "Failure") {
              addKill(changes, status, `Init container ${container.name} failed startup probe`, "StartupProbe");
              toStart.push(i);
            }
            break;
          }
        }
        // The sidecar has started: the next init container may run.
        if (i === last) podHasInitialized = true;
        else if (!previouslyInitialized) toStart.push(i + 1);
        if (containerChanged(container, status.hash)) {
          addKill(changes, status, `Init container ${container.name} definition changed`, "");
          toStart.push(i);
          break;
        }
        // Liveness does not gate the next init container, but a failure restarts the sidecar.
        if (container.livenessProbe) {
          const liveness = probes.liveness(status.id);
          if (liveness === "Failure") {
            addKill(changes, status, `Init container ${container.name} failed liveness probe`, "LivenessProbe");
            toStart.push(i);
            break;
          }
        }
        // A sidecar resized with RestartContainer restarts.
        if (actuated !== undefined && !computePodResizeAction(pod, i, true, status, actuated, changes)) toStart.push(i);
        break;
      }
      case "exited":
        if (sidecar) {
          // Sidecars are restarted whatever the pod's restartPolicy.
          toStart.push(i);
        } else if (isInitContainerFailed(status)) {
          // Its rules and own policy on the exit code, else the pod's policy.
          if (!shouldContainerBeRestarted(container, pod, podStatus)) return failPod(changes);
          toStart.push(i);
        } else if (i === last) {
          podHasInitialized = true;
        } else {
          toStart.push(i + 1);
        }
        break;
      default: // unknown
        // No exit code to judge: its own policy, else the pod's.
        if (!sidecar && !restartOnFailure(pod, container)) return failPod(changes);
        addKill(changes, status, `Init container is in "unknown" state, try killing it before restart`, "Unknown");
        toStart.push(i);
    }
    previouslyInitialized = true;
  }

  // No init container has run yet: start the first one.
  if (!previouslyInitialized) toStart.push(0);
  changes.initContainersToStart.push(...toStart.reverse());
  return podHasInitialized;
}

/** A regular init container failed under restartPolicy Never: the pod is done. */
function failPod(changes: PodActions): false {
  changes.killPod = true;
  changes.initContainersToStart = [];
  return false;
}
