/**
 * The pod phase (kubelet_pods.go getPhase): a pure function of the pod spec and its API
 * container statuses. Regular init containers gate the start; sidecars (restartable init
 * containers) count as running but their exits do not end the pod; regular containers decide
 * Running / Succeeded / Failed by whether each stopped one is to be restarted: its restart rules,
 * its own restartPolicy, else the pod's (ContainerRestartRules, on by default since 1.35).
 */
import { isStaticPod, type ContainerStatus, type Pod, type PodPhase } from "../api/index.ts";
import { containerShouldRestart, isRestartableInitContainer } from "../container/index.ts";

export function isPodPhaseTerminal(phase: PodPhase | undefined): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

/** Any regular container is running or has exited (so initialization once completed). */
export function hasAnyRegularContainerStarted(pod: Pod, statuses: ContainerStatus[]): boolean {
  const names = new Set(pod.spec.containers.map((c) => c.name));
  return statuses.some((s) => names.has(s.name) && (s.state?.running !== undefined || s.state?.terminated !== undefined));
}

function find(statuses: ContainerStatus[], name: string): ContainerStatus | undefined {
  return statuses.find((s) => s.name === name);
}

/**
 * @param containerStatuses API statuses of the regular containers
 * @param initStatuses API statuses of the init containers (sidecars included)
 * @param podIsTerminal the pod worker knows nothing will run again (not for static pods)
 * @param podHasInitialized a regular container exists in the current sandbox; when absent, any
 *   regular container having run (per its API status) counts
 */
export function getPhase(
  pod: Pod,
  containerStatuses: ContainerStatus[],
  initStatuses: ContainerStatus[],
  podIsTerminal: boolean,
  podHasInitialized?: boolean,
): PodPhase {
  const spec = pod.spec;
  const initContainers = spec.initContainers ?? [];
  let pendingRegularInit = 0;
  let pendingSidecars = 0;
  let failedInitNotRestartable = 0;
  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  let stoppedNotRestartable = 0;

  for (const container of initContainers) {
    const status = find(initStatuses, container.name);
    const state = status?.state;
    if (isRestartableInitContainer(container)) {
      // A sidecar that exited (or waits to restart after an exit) does not hold the pod back.
      if (status === undefined) unknown++;
      else if (state?.running) {
        if (status.started !== true) pendingSidecars++;
        running++;
      } else if (state?.terminated) {
        // ignored
      } else if (state?.waiting) {
        if (status.lastState?.terminated === undefined) {
          pendingSidecars++;
          waiting++;
        }
      } else {
        pendingSidecars++;
        unknown++;
      }
      continue;
    }
    // A failed init container ends the pod unless its rules or policy (else the pod's) restart it.
    const failed = (exitCode: number) => {
      if (exitCode !== 0 && !containerShouldRestart(container, pod, exitCode)) failedInitNotRestartable++;
    };
    if (status === undefined || state?.running) pendingRegularInit++;
    else if (state?.terminated) failed(state.terminated.exitCode);
    else if (state?.waiting) {
      const last = status.lastState?.terminated;
      if (last === undefined) pendingRegularInit++;
      else failed(last.exitCode);
    } else pendingRegularInit++;
  }

  for (const container of spec.containers) {
    const status = find(containerStatuses, container.name);
    const state = status?.state;
    if (status === undefined) unknown++;
    else if (state?.running) running++;
    else if (state?.terminated) {
      stopped++;
      if (!containerShouldRestart(container, pod, state.terminated.exitCode)) stoppedNotRestartable++;
      if (state.terminated.exitCode === 0) succeeded++;
    } else if (state?.waiting) {
      const last = status.lastState?.terminated;
      if (last !== undefined) {
        stopped++;
        if (!containerShouldRestart(container, pod, last.exitCode)) stoppedNotRestartable++;
      } else waiting++;
    } else unknown++;
  }

  if (failedInitNotRestartable > 0) return "Failed";

  const initialized = podHasInitialized ?? hasAnyRegularContainerStarted(pod, containerStatuses);
  if (pendingRegularInit > 0 || (pendingSidecars > 0 && !initialized) || waiting > 0) return "Pending";
  if (running > 0 && unknown === 0) return "Running";
  if (running === 0 && stopped > 0 && unknown === 0) {
    // Static pods never get a terminal phase this way (kubernetes#116484).
    if (podIsTerminal && !isStaticPod(pod)) return stopped === succeeded ? "Succeeded" : "Failed";
    // Some container is on its way back (the pod's policy or the container's own rules say so).
    if (stopped !== stoppedNotRestartable) return "Running";
    return stopped === succeeded ? "Succeeded" : "Failed";
  }
  return "Pending";
}
