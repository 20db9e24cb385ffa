/**
 * The apiserver's path and propagation rules of ValidatePodCreate (pkg/apis/core/validation)
 * that keep a pod inside what it was given: no `..` in a hostPath (validatePathNoBacksteps), item
 * paths of configMap, secret, downwardAPI and projected volumes relative, without `..` and not
 * starting with `..` (ValidateLocalNonReservedPath: `..data` and the timestamped directories are
 * the AtomicWriter's), and Bidirectional mount propagation only for privileged containers
 * (validateMountPropagation). Field paths are the apiserver's, including its quirks: a
 * downwardAPI item is reported at `downwardAPI.path`, a projected token at `projected.path`, a
 * propagation at `volumeMounts.mountPropagation`, without the item's index.
 */
import type { Container, DownwardAPIVolumeFile, KeyToPath, PodSpec } from "../api/index.ts";
import { fieldErrors as fe, type FieldError } from "./errors.ts";

const propagations = ["Bidirectional", "HostToContainer", "None"];

/** validatePathNoBacksteps: one error however many `..` elements. */
function checkNoBacksteps(path: string, field: string, errs: FieldError[]): void {
  if (path.split("/").includes("..")) errs.push(fe.invalid(field, path, "must not contain '..'"));
}

/** ValidateLocalNonReservedPath (validateLocalDescendingPath, then the reserved `..` prefix). */
function checkLocalNonReservedPath(path: string, field: string, errs: FieldError[]): void {
  if (path.startsWith("/")) errs.push(fe.invalid(field, path, "must be a relative path"));
  checkNoBacksteps(path, field, errs);
  if (path.startsWith("..") && !path.startsWith("../")) errs.push(fe.invalid(field, path, "must not start with '..'"));
}

function checkKeyToPaths(items: KeyToPath[] | undefined, field: string, errs: FieldError[]): void {
  (items ?? []).forEach((kp, i) => {
    const path = kp.path ?? "";
    if (path === "") errs.push(fe.required(`${field}[${i}].path`));
    checkLocalNonReservedPath(path, `${field}[${i}].path`, errs);
  });
}

/** validateDownwardAPIVolumeFile is given the source's path, not the item's. */
function checkDownwardAPIFiles(items: DownwardAPIVolumeFile[] | undefined, field: string, errs: FieldError[]): void {
  for (const file of items ?? []) {
    const path = file.path ?? "";
    if (path === "") errs.push(fe.required(`${field}.path`));
    checkLocalNonReservedPath(path, `${field}.path`, errs);
  }
}

/** The path rules of every volume source that has paths. */
export function validateVolumePaths(spec: PodSpec, errs: FieldError[]): void {
  (spec.volumes ?? []).forEach((v, i) => {
    const field = `spec.volumes[${i}]`;
    if (v.hostPath?.path) checkNoBacksteps(v.hostPath.path, `${field}.hostPath.path`, errs);
    if (v.secret) checkKeyToPaths(v.secret.items, `${field}.secret.items`, errs);
    if (v.configMap) checkKeyToPaths(v.configMap.items, `${field}.configMap.items`, errs);
    if (v.downwardAPI) checkDownwardAPIFiles(v.downwardAPI.items, `${field}.downwardAPI`, errs);
    if (!v.projected) return;
    (v.projected.sources ?? []).forEach((source, j) => {
      const src = `${field}.projected.sources[${j}]`;
      if (source.secret) checkKeyToPaths(source.secret.items, `${src}.secret.items`, errs);
      if (source.configMap) checkKeyToPaths(source.configMap.items, `${src}.configMap.items`, errs);
      if (source.downwardAPI) checkDownwardAPIFiles(source.downwardAPI.items, `${src}.downwardAPI`, errs);
      const token = source.serviceAccountToken;
      if (token) {
        if (!token.path) errs.push(fe.required(`${field}.projected.path`));
        else checkLocalNonReservedPath(token.path, `${field}.projected.path`, errs);
      }
    });
  });
}

function checkPropagations(c: Container, field: string, errs: FieldError[]): void {
  const privileged = c.securityContext?.privileged === true;
  for (const m of c.volumeMounts ?? []) {
    const mode = m.mountPropagation;
    if (mode === undefined) continue;
    const path = `${field}.volumeMounts.mountPropagation`;
    if (!propagations.includes(mode)) errs.push(fe.notSupported(path, mode, propagations));
    if (mode === "Bidirectional" && !privileged) errs.push(fe.forbidden(path, "Bidirectional mount propagation is available only to privileged containers"));
  }
}

/** validateMountPropagation for every init and regular container. */
export function validateMountPropagations(spec: PodSpec, errs: FieldError[]): void {
  (spec.initContainers ?? []).forEach((c, i) => checkPropagations(c, `spec.initContainers[${i}]`, errs));
  (spec.containers ?? []).forEach((c, i) => checkPropagations(c, `spec.containers[${i}]`, errs));
}
