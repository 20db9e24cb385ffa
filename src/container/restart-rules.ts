/**
 * Container restart rules (the ContainerRestartRules gate, beta and on by default since 1.35;
 * pkg/api/v1/pod/util.go ContainerShouldRestart, FindMatchingContainerRestartRule). A container may carry its own restartPolicy (Always, OnFailure, Never)
 * and restartPolicyRules; its rules are looked at first, in order, on an exit code; then its own
 * policy; then the pod's. bunlet behaves as the gate's default (on): the apiserver of a cluster
 * with the gate off drops these fields, and a static pod that sets them asks for them.
 */
import { podRestartPolicy, type Container, type ContainerRestartRule, type Pod } from "../api/index.ts";

/** The first rule whose exit codes match (In: listed; NotIn: not listed); a rule without exitCodes never matches. */
function findMatchingContainerRestartRule(container: Container, exitCode: number): ContainerRestartRule | undefined {
  for (const rule of container.restartPolicyRules ?? []) {
    if (rule.exitCodes === undefined) continue;
    const listed = (rule.exitCodes.values ?? []).includes(exitCode);
    if (rule.exitCodes.operator === "In" && listed) return rule;
    if (rule.exitCodes.operator === "NotIn" && !listed) return rule;
  }
  return undefined;
}

/**
 * Whether a container that exited with exitCode is to be restarted. Rules count only with a
 * container-level restartPolicy (the API requires one); the RestartAllContainers action needs a
 * gate that is off, so such a rule falls back to the container's policy.
 */
export function containerShouldRestart(container: Container, pod: Pod, exitCode: number): boolean {
  if (container.restartPolicy !== undefined) {
    if (findMatchingContainerRestartRule(container, exitCode)?.action === "Restart") return true;
    switch (container.restartPolicy) {
      case "Always":
        return true;
      case "OnFailure":
        return exitCode !== 0;
      case "Never":
        return false;
    }
  }
  switch (podRestartPolicy(pod)) {
    case "OnFailure":
      return exitCode !== 0;
    case "Never":
      return false;
    case "Always":
      return true;
  }
}

/**
 * Whether a container is restarted after a kill that leaves no exit code to judge (a failed
 * liveness or startup probe, an init container in unknown state): its own policy when it has
 * one, its rules not looked at, else the pod's.
 */
export function restartOnFailure(pod: Pod, container: Container): boolean {
  if (container.restartPolicy !== undefined) return container.restartPolicy !== "Never";
  return podRestartPolicy(pod) !== "Never";
}
