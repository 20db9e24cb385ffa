/**
 * The seccomp rules of ValidatePodCreate (validateSeccompProfileField, ValidateSeccompPodAnnotations):
 * a profile needs a known type, and a Localhost profile needs a localhostProfile that is a relative
 * path without `..` (it is joined under the node's seccomp root). As in the apiserver, an empty
 * localhostProfile passes here; the runtime refuses it when the container is created
 * (CVE-2023-2431: the kubelet used to run such a container unconfined).
 */
import type { PodSpec } from "../api/index.ts";
import { fieldErrors as fe, type FieldError } from "./errors.ts";

const seccompTypes = ["Localhost", "RuntimeDefault", "Unconfined"];
/** The deprecated annotations the apiserver still validates (bunlet, like the kubelet since 1.27, does not apply them). */
const podAnnotation = "seccomp.security.alpha.kubernetes.io/pod";
const containerAnnotationPrefix = "container.seccomp.security.alpha.kubernetes.io/";
const localhostPrefix = "localhost/";

/** validateLocalDescendingPath. */
function checkDescendingPath(value: string, path: string, errs: FieldError[]): void {
  if (value.startsWith("/")) errs.push(fe.invalid(path, value, "must be a relative path"));
  if (value.split("/").includes("..")) errs.push(fe.invalid(path, value, "must not contain '..'"));
}

function checkProfile(profile: { type?: string; localhostProfile?: string } | undefined, path: string, errs: FieldError[]): void {
  if (!profile) return;
  if (!profile.type) errs.push(fe.required(`${path}.type`, "type is required when seccompProfile is set"));
  else if (!seccompTypes.includes(profile.type)) errs.push(fe.notSupported(`${path}.type`, profile.type, seccompTypes));
  if (profile.type !== "Localhost") return;
  if (profile.localhostProfile === undefined || profile.localhostProfile === null) {
    errs.push(fe.required(`${path}.localhostProfile`, "must be set when seccomp type is Localhost"));
  } else {
    checkDescendingPath(profile.localhostProfile, `${path}.localhostProfile`, errs);
  }
}

/** ValidateSeccompProfile of an annotation's value. */
function checkAnnotation(value: string, path: string, errs: FieldError[]): void {
  if (value === "runtime/default" || value === "docker/default" || value === "unconfined") return;
  if (value.startsWith(localhostPrefix)) return checkDescendingPath(value.slice(localhostPrefix.length), path, errs);
  errs.push(fe.invalid(path, value, "must be a valid seccomp profile"));
}

export function validateSeccomp(annotations: Record<string, string> | undefined, spec: PodSpec, errs: FieldError[]): void {
  for (const [key, value] of Object.entries(annotations ?? {})) {
    if (key === podAnnotation || key.startsWith(containerAnnotationPrefix)) checkAnnotation(value, `metadata.annotations.${key}`, errs);
  }
  (spec.initContainers ?? []).forEach((c, i) => checkProfile(c.securityContext?.seccompProfile, `spec.initContainers[${i}].securityContext.seccompProfile`, errs));
  (spec.containers ?? []).forEach((c, i) => checkProfile(c.securityContext?.seccompProfile, `spec.containers[${i}].securityContext.seccompProfile`, errs));
  checkProfile(spec.securityContext?.seccompProfile, "spec.securityContext.seccompProfile", errs);
}
