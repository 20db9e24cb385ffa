/**
 * Pod-level rules of the apiserver's ValidatePodCreate for what bunlet needs: metadata names,
 * labels and annotations, volumes, policies, DNS and tolerations; containers are checked in
 * validate-container.ts, volume paths and mount propagation in validate-paths.ts. Field paths
 * are the apiserver's.
 */
import type { Pod, PodSpec } from "../api/index.ts";
import { volumeSourceKeys } from "./defaults.ts";
import { fieldErrors as fe, type FieldError } from "./errors.ts";
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from "./names.ts";
import { validateContainers } from "./validate-container.ts";
import { validateMountPropagations, validateVolumePaths } from "./validate-paths.ts";
import { validateSeccomp } from "./validate-security.ts";

const restartPolicies = ["Always", "Never", "OnFailure"];
const dnsPolicies = ["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"];
const hostPathTypes = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"];
const tolerationOperators = ["Equal", "Exists"];
const taintEffects = ["NoExecute", "NoSchedule", "PreferNoSchedule"];
const totalAnnotationSizeLimitB = 256 * 1024;

function validateMetadata(pod: Pod, errs: FieldError[]): void {
  const meta = pod.metadata;
  if (!meta.name) errs.push(fe.required("metadata.name", "name or generateName is required"));
  else for (const msg of isDNS1123Subdomain(meta.name)) errs.push(fe.invalid("metadata.name", meta.name, msg));
  if (!meta.namespace) errs.push(fe.required("metadata.namespace"));
  else for (const msg of isDNS1123Label(meta.namespace)) errs.push(fe.invalid("metadata.namespace", meta.namespace, msg));
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    for (const msg of isQualifiedName(key)) errs.push(fe.invalid("metadata.labels", key, msg));
    for (const msg of isValidLabelValue(value)) errs.push(fe.invalid("metadata.labels", value, msg));
  }
  let size = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    for (const msg of isQualifiedName(key.toLowerCase())) errs.push(fe.invalid("metadata.annotations", key, msg));
    size += key.length + value.length;
  }
  if (size > totalAnnotationSizeLimitB) errs.push(fe.tooLong("metadata.annotations", totalAnnotationSizeLimitB));
}

/** Checks volumes and returns the names that volume mounts may refer to. */
function validateVolumes(spec: PodSpec, errs: FieldError[]): Set<string> {
  const names = new Set<string>();
  (spec.volumes ?? []).forEach((v, i) => {
    const path = `spec.volumes[${i}]`;
    if (!v.name) errs.push(fe.required(`${path}.name`));
    else {
      for (const msg of isDNS1123Label(v.name)) errs.push(fe.invalid(`${path}.name`, v.name, msg));
      if (names.has(v.name)) errs.push(fe.duplicate(`${path}.name`, v.name));
      names.add(v.name);
    }
    const sources = volumeSourceKeys.filter((k) => v[k] !== undefined);
    if (sources.length === 0) errs.push(fe.required(path, "must specify a volume type"));
    for (const extra of sources.slice(1)) errs.push(fe.forbidden(`${path}.${extra}`, "may not specify more than 1 volume type"));
    if (v.hostPath) {
      if (!v.hostPath.path) errs.push(fe.required(`${path}.hostPath.path`));
      const type = v.hostPath.type ?? "";
      if (!hostPathTypes.includes(type)) errs.push(fe.notSupported(`${path}.hostPath.type`, type, hostPathTypes));
    }
  });
  return names;
}

function validatePolicies(spec: PodSpec, errs: FieldError[]): void {
  if (spec.restartPolicy !== undefined && !restartPolicies.includes(spec.restartPolicy)) {
    errs.push(fe.notSupported("spec.restartPolicy", spec.restartPolicy, restartPolicies));
  }
  if (spec.dnsPolicy !== undefined && !dnsPolicies.includes(spec.dnsPolicy)) {
    errs.push(fe.notSupported("spec.dnsPolicy", spec.dnsPolicy, dnsPolicies));
  }
  if (spec.dnsPolicy === "None" && !spec.dnsConfig) {
    errs.push(fe.required("spec.dnsConfig", "must provide `dnsConfig` when `dnsPolicy` is None"));
  }
  const grace = spec.terminationGracePeriodSeconds;
  if (grace !== undefined && grace < 0) {
    errs.push(fe.invalid("spec.terminationGracePeriodSeconds", grace, "must be greater than or equal to 0"));
  }
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && !(deadline >= 1 && deadline <= 2147483647)) {
    errs.push(fe.invalid("spec.activeDeadlineSeconds", deadline, "must be between 1 and 2147483647, inclusive"));
  }
  for (const key of ["hostname", "subdomain"] as const) {
    const v = spec[key];
    if (v) for (const msg of isDNS1123Label(v)) errs.push(fe.invalid(`spec.${key}`, v, msg));
  }
  validateHostnameOverride(spec, errs);
  (spec.tolerations ?? []).forEach((t, i) => {
    const path = `spec.tolerations[${i}]`;
    if (t.operator !== undefined && !tolerationOperators.includes(t.operator)) {
      errs.push(fe.notSupported(`${path}.operator`, t.operator, tolerationOperators));
    }
    if (t.effect !== undefined && t.effect !== "" && !taintEffects.includes(t.effect)) {
      errs.push(fe.notSupported(`${path}.effect`, t.effect, taintEffects));
    }
    if (t.operator === "Exists" && t.value) {
      errs.push(fe.invalid(`${path}.operator`, t.operator, "value must be empty when `operator` is 'Exists'"));
    }
  });
}

/** validateHostnameOverride: a DNS subdomain of at most 64 characters, not with setHostnameAsFQDN nor hostNetwork. */
function validateHostnameOverride(spec: PodSpec, errs: FieldError[]): void {
  const v = spec.hostnameOverride;
  if (v === undefined) return;
  const field = "spec.hostnameOverride";
  if (spec.setHostnameAsFQDN === true) errs.push(fe.forbidden(field, "may not be specified when setHostnameAsFQDN is true"));
  if (spec.hostNetwork === true) errs.push(fe.forbidden(field, "may not be specified when hostNetwork is true"));
  if (v.length > 64) errs.push(fe.tooLong(field, 64));
  for (const msg of isDNS1123Subdomain(v)) errs.push(fe.invalid(field, v, msg));
}

/** Every reason the apiserver would refuse to create this pod, in field order. */
export function validatePod(pod: Pod): FieldError[] {
  const errs: FieldError[] = [];
  validateMetadata(pod, errs);
  const volumeNames = validateVolumes(pod.spec, errs);
  validateVolumePaths(pod.spec, errs);
  validateContainers(pod.spec, volumeNames, errs);
  validateMountPropagations(pod.spec, errs);
  validateSeccomp(pod.metadata.annotations, pod.spec, errs);
  validatePolicies(pod.spec, errs);
  return errs;
}
