/**
 * Container-level rules of the apiserver's ValidatePodCreate (pkg/apis/core/validation), for the
 * fields bunlet acts on: names (unique across init and regular containers), images, pull and
 * termination-message policies, ports, environment, resources (validate-resources.ts), volume
 * mounts, probes and lifecycle hooks.
 */
import { isRestartableInitContainer, type Container, type ContainerPort, type LifecycleHandler, type PodSpec, type Probe } from "../api/index.ts";
import { validateContainerRestartPolicy } from "./validate-restart.ts";
import { fieldErrors as fe, type FieldError } from "./errors.ts";
import { isDNS1123Label, isEnvVarName, isValidPortName } from "./names.ts";
import { validateResourceFieldRef, validateResourceRequirements } from "./validate-resources.ts";

const pullPolicies = ["Always", "IfNotPresent", "Never"];
const terminationMessagePolicies = ["FallbackToLogsOnError", "File"];
const protocols = ["SCTP", "TCP", "UDP"];
const portRange = "must be between 1 and 65535, inclusive";

function checkPortNumber(value: number, path: string, errs: FieldError[]): void {
  if (!(value >= 1 && value <= 65535)) errs.push(fe.invalid(path, value, portRange));
}

/** A probe or hook port: a number in range or the name of a container port. */
function checkPortRef(port: number | string, path: string, errs: FieldError[]): void {
  if (typeof port === "number") return checkPortNumber(port, path, errs);
  for (const msg of isValidPortName(port)) errs.push(fe.invalid(path, port, msg));
}

function checkPorts(ports: ContainerPort[], path: string, hostNetwork: boolean, errs: FieldError[]): void {
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const p = `${path}[${i}]`;
    if (port.name !== undefined && port.name !== "") {
      for (const msg of isValidPortName(port.name)) errs.push(fe.invalid(`${p}.name`, port.name, msg));
      if (names.has(port.name)) errs.push(fe.duplicate(`${p}.name`, port.name));
      names.add(port.name);
    }
    if (!port.containerPort) errs.push(fe.required(`${p}.containerPort`));
    else checkPortNumber(port.containerPort, `${p}.containerPort`, errs);
    if (port.hostPort) checkPortNumber(port.hostPort, `${p}.hostPort`, errs);
    if (port.protocol !== undefined && !protocols.includes(port.protocol)) {
      errs.push(fe.notSupported(`${p}.protocol`, port.protocol, protocols));
    }
    if (hostNetwork && port.hostPort !== port.containerPort) {
      errs.push(fe.invalid(`${p}.containerPort`, port.containerPort, "must match `hostPort` when `hostNetwork` is true"));
    }
  });
}

type Handler = LifecycleHandler & Pick<Probe, "grpc">;

function checkHandler(h: Handler, path: string, errs: FieldError[]): void {
  const kinds = (["exec", "httpGet", "tcpSocket", "grpc", "sleep"] as const).filter((k) => h[k] !== undefined);
  if (kinds.length === 0) return void errs.push(fe.required(path, "must specify a handler type"));
  for (const extra of kinds.slice(1)) {
    errs.push(fe.forbidden(`${path}.${extra}`, "may not specify more than 1 handler type"));
  }
  if (h.exec && (h.exec.command ?? []).length === 0) errs.push(fe.required(`${path}.exec.command`));
  if (h.httpGet) {
    checkPortRef(h.httpGet.port, `${path}.httpGet.port`, errs);
    const scheme = h.httpGet.scheme;
    if (scheme !== undefined && scheme !== "HTTP" && scheme !== "HTTPS") {
      errs.push(fe.notSupported(`${path}.httpGet.scheme`, scheme, ["HTTP", "HTTPS"]));
    }
  }
  if (h.tcpSocket) checkPortRef(h.tcpSocket.port, `${path}.tcpSocket.port`, errs);
  if (h.grpc) checkPortNumber(h.grpc.port, `${path}.grpc.port`, errs);
  if (h.sleep && h.sleep.seconds < 0) {
    errs.push(fe.invalid(`${path}.sleep.seconds`, h.sleep.seconds, "must be greater than or equal to 0"));
  }
}

type ProbeKind = "livenessProbe" | "readinessProbe" | "startupProbe";

function checkProbe(probe: Probe, kind: ProbeKind, path: string, errs: FieldError[]): void {
  checkHandler(probe, path, errs);
  for (const key of ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"] as const) {
    const v = probe[key];
    if (v !== undefined && v < 0) errs.push(fe.invalid(`${path}.${key}`, v, "must be greater than or equal to 0"));
  }
  if (kind !== "readinessProbe" && probe.successThreshold !== undefined && probe.successThreshold !== 1) {
    errs.push(fe.invalid(`${path}.successThreshold`, probe.successThreshold, "must be 1"));
  }
  const grace = probe.terminationGracePeriodSeconds;
  if (grace !== undefined) {
    if (kind === "readinessProbe") errs.push(fe.invalid(`${path}.terminationGracePeriodSeconds`, grace, "must not be set for readinessProbes"));
    else if (grace <= 0) errs.push(fe.invalid(`${path}.terminationGracePeriodSeconds`, grace, "must be greater than 0"));
  }
}

/** validateLocalDescendingPath: relative, and no `..` element (one error however many). */
function checkLocalDescendingPath(target: string, path: string, errs: FieldError[]): void {
  if (target.startsWith("/")) errs.push(fe.invalid(path, target, "must be a relative path"));
  if (target.split("/").includes("..")) errs.push(fe.invalid(path, target, "must not contain '..'"));
}

function checkContainer(c: Container, path: string, init: boolean, ctx: ContainerContext, errs: FieldError[]): void {
  if (!c.name) errs.push(fe.required(`${path}.name`));
  else {
    for (const msg of isDNS1123Label(c.name)) errs.push(fe.invalid(`${path}.name`, c.name, msg));
    if (ctx.names.has(c.name)) errs.push(fe.duplicate(`${path}.name`, c.name));
    ctx.names.add(c.name);
  }
  if (!c.image) errs.push(fe.required(`${path}.image`));
  else if (c.image.trim() !== c.image) {
    errs.push(fe.invalid(`${path}.image`, c.image, "must not have leading or trailing whitespace"));
  }
  if (c.imagePullPolicy !== undefined && !pullPolicies.includes(c.imagePullPolicy)) {
    errs.push(fe.notSupported(`${path}.imagePullPolicy`, c.imagePullPolicy, pullPolicies));
  }
  const tmp = c.terminationMessagePolicy;
  if (tmp !== undefined && !terminationMessagePolicies.includes(tmp)) {
    errs.push(fe.notSupported(`${path}.terminationMessagePolicy`, tmp, terminationMessagePolicies));
  }
  checkPorts(c.ports ?? [], `${path}.ports`, ctx.hostNetwork, errs);
  (c.env ?? []).forEach((env, i) => {
    if (!env.name) errs.push(fe.required(`${path}.env[${i}].name`));
    else for (const msg of isEnvVarName(env.name)) errs.push(fe.invalid(`${path}.env[${i}].name`, env.name, msg));
    const ref = env.valueFrom?.resourceFieldRef;
    if (ref) validateResourceFieldRef(ref, `${path}.env[${i}].valueFrom.resourceFieldRef`, errs);
  });
  validateResourceRequirements(c.resources, `${path}.resources`, errs);
  const mountPaths = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const p = `${path}.volumeMounts[${i}]`;
    if (!m.name) errs.push(fe.required(`${p}.name`));
    else if (!ctx.volumes.has(m.name)) errs.push(fe.notFound(`${p}.name`, m.name));
    if (!m.mountPath) errs.push(fe.required(`${p}.mountPath`));
    else if (mountPaths.has(m.mountPath)) errs.push(fe.invalid(`${p}.mountPath`, m.mountPath, "must be unique"));
    else mountPaths.add(m.mountPath);
    // The apiserver names these fields without the mount's index (fldPath.Child, not idxPath).
    if (m.subPath) checkLocalDescendingPath(m.subPath, `${path}.volumeMounts.subPath`, errs);
    if (m.subPathExpr) {
      if (m.subPath) errs.push(fe.invalid(`${p}.subPathExpr`, m.subPathExpr, "subPathExpr and subPath are mutually exclusive"));
      checkLocalDescendingPath(m.subPathExpr, `${path}.volumeMounts.subPathExpr`, errs);
    }
  });
  const sidecar = init && isRestartableInitContainer(c);
  for (const kind of ["livenessProbe", "readinessProbe", "startupProbe"] as const) {
    const probe = c[kind];
    if (!probe) continue;
    if (init && !sidecar) errs.push(fe.forbidden(`${path}.${kind}`, "may not be set for init containers without restartPolicy=Always"));
    else checkProbe(probe, kind, `${path}.${kind}`, errs);
  }
  if (c.lifecycle?.postStart) checkHandler(c.lifecycle.postStart, `${path}.lifecycle.postStart`, errs);
  if (c.lifecycle?.preStop) checkHandler(c.lifecycle.preStop, `${path}.lifecycle.preStop`, errs);
  validateContainerRestartPolicy(c, path, init, errs);
}

interface ContainerContext {
  names: Set<string>;
  volumes: Set<string>;
  hostNetwork: boolean;
}

/** Validates init and regular containers; ephemeral containers cannot be set on create. */
export function validateContainers(spec: PodSpec, volumeNames: Set<string>, errs: FieldError[]): void {
  const ctx: ContainerContext = { names: new Set(), volumes: volumeNames, hostNetwork: spec.hostNetwork === true };
  (spec.initContainers ?? []).forEach((c, i) => checkContainer(c, `spec.initContainers[${i}]`, true, ctx, errs));
  if ((spec.containers ?? []).length === 0) errs.push(fe.required("spec.containers"));
  (spec.containers ?? []).forEach((c, i) => checkContainer(c, `spec.containers[${i}]`, false, ctx, errs));
  if ((spec.ephemeralContainers ?? []).length > 0) {
    errs.push(fe.forbidden("spec.ephemeralContainers", "cannot be set on create"));
  }
}
