/**
 * A container's own restartPolicy and restartPolicyRules, as the apiserver validates them with
 * ContainerRestartRules on (validation.go validateContainerRestartPolicy and
 * validateInitContainerRestartPolicy) and RestartAllContainersOnContainerExits off: a regular
 * container may have Always, OnFailure or Never with up to 20 rules; an init container with
 * Always is a sidecar and has no rules; rules need a restartPolicy, the action Restart, and
 * exitCodes with the operator In or NotIn and at most 255 values.
 */
import { isRestartableInitContainer, type Container } from "../api/index.ts";
import { fieldErrors as fe, type FieldError } from "./errors.ts";

const policies = ["Always", "Never", "OnFailure"] as const;
const actions = ["Restart"] as const;
const operators = ["In", "NotIn"] as const;

export function validateContainerRestartPolicy(c: Container, path: string, init: boolean, errs: FieldError[]): void {
  const rules = c.restartPolicyRules ?? [];
  if (c.restartPolicy === undefined) {
    if (rules.length > 0) errs.push(fe.required(`${path}.restartPolicy`, "must specify restartPolicy when restart rules are used"));
    return;
  }
  if (init && isRestartableInitContainer(c)) {
    if (rules.length > 0) errs.push(fe.forbidden(`${path}.restartPolicyRules`, "restartPolicyRules are not allowed for init containers with restart policy Always"));
    return;
  }
  if (!(policies as readonly string[]).includes(c.restartPolicy)) errs.push(fe.notSupported(`${path}.restartPolicy`, c.restartPolicy, policies));
  if (rules.length > 20) errs.push(fe.tooMany(`${path}.restartPolicyRules`, rules.length, 20));
  rules.forEach((rule, i) => {
    const p = `${path}.restartPolicyRules[${i}]`;
    if (!(actions as readonly string[]).includes(rule.action)) errs.push(fe.notSupported(`${p}.action`, rule.action, actions));
    if (rule.exitCodes === undefined) {
      errs.push(fe.required(`${p}.exitCodes`, "must be specified"));
      return;
    }
    if (!(operators as readonly string[]).includes(rule.exitCodes.operator)) errs.push(fe.notSupported(`${p}.exitCodes.operator`, rule.exitCodes.operator, operators));
    const values = rule.exitCodes.values ?? [];
    if (values.length > 255) errs.push(fe.tooMany(`${p}.exitCodes.values`, values.length, 255));
  });
}
