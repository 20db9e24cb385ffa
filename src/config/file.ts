/**
 * The --config file: a KubeletConfiguration (YAML or JSON, read with YAML 1.1 scalars as the
 * kubelet's sigs.k8s.io/yaml reads it) decoded strictly, as the kubelet
 * does: wrong apiVersion/kind, a duplicate key, an unknown field or a value of the wrong type is
 * an error naming the file and the field. Well-known kubelet fields bunlet does not act on are
 * accepted and returned by name, for the one start-up line that lists them. A relative
 * staticPodPath is resolved against the file's folder (the kubelet's KubeletConfigurationPathRefs).
 */
import { dirname, resolve } from "node:path";
import { readYaml, YamlError } from "../lib/index.ts";
import { cgroupsReaders } from "./cgroups.ts";
import { upkeepReaders } from "./upkeep.ts";
import { checkGate } from "./featuregates.ts";
import { ignoredKubeletFields, ignoredLoggingFields } from "./kubelet-fields.ts";
import { tlsCipherSuites, tlsMinVersion } from "./tls.ts";
import { ConfigError, defaults, type ConfigLayer } from "./types.ts";
import * as v from "./values.ts";

const KUBELET_CONFIG_API_VERSION = "kubelet.config.k8s.io/v1beta1";
const KUBELET_CONFIG_KIND = "KubeletConfiguration";

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);
const describe = (x: unknown) => (x === null ? "null" : Array.isArray(x) ? "a list" : `${typeof x} ${JSON.stringify(x)}`);

function str(x: unknown): string {
  if (typeof x !== "string") throw new v.ValueError(`expected a string, found ${describe(x)}`);
  return x;
}
function strList(x: unknown): string[] {
  if (!Array.isArray(x) || !x.every((s) => typeof s === "string")) throw new v.ValueError(`expected a list of strings, found ${describe(x)}`);
  return x;
}
function int(x: unknown): number {
  if (typeof x !== "number" || !Number.isInteger(x)) throw new v.ValueError(`expected an integer, found ${describe(x)}`);
  return x;
}
/**
 * metav1.Duration is a string in YAML/JSON ("20s"), never a bare number. A zero duration means
 * "the default", as the kubelet's defaulting does (kubeadm writes "0s" for fields it leaves
 * alone), so it sets nothing.
 */
function duration(x: unknown, set: (ms: number) => void): void {
  if (typeof x !== "string") throw new v.ValueError(`expected a duration string such as "20s", found ${describe(x)}`);
  const ms = v.durationMs(x);
  if (ms > 0) set(ms);
}

function headerMap(x: unknown): Record<string, string[]> {
  if (!isObj(x)) throw new v.ValueError(`expected a map of header name to a list of values, found ${describe(x)}`);
  const out: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(x)) {
    if (!Array.isArray(values) || !values.every((s) => typeof s === "string")) {
      throw new v.ValueError(`header ${JSON.stringify(name)}: expected a list of strings, found ${describe(values)}`);
    }
    out[name] = [...values];
  }
  return out;
}

function gateMap(x: unknown): Record<string, boolean> {
  if (!isObj(x)) throw new v.ValueError(`expected a map of gate name to true/false, found ${describe(x)}`);
  for (const [name, value] of Object.entries(x)) {
    if (typeof value !== "boolean") throw new v.ValueError(`${name}: expected true or false, found ${describe(value)}`);
    checkGate(name, value);
  }
  return { ...(x as Record<string, boolean>) };
}

/** Fields bunlet reads: name → how the value lands in the layer. */
const readers: Record<string, (x: unknown, layer: ConfigLayer, dir: string) => void> = {
  staticPodPath: (x, l, dir) => void (l.staticPodPath = str(x) === "" ? "" : resolve(dir, str(x))),
  staticPodURL: (x, l) => void (l.staticPodURL = str(x)),
  staticPodURLHeader: (x, l) => void (l.staticPodURLHeader = headerMap(x)),
  syncFrequency: (x, l) => duration(x, (ms) => (l.syncFrequencyMs = ms)),
  fileCheckFrequency: (x, l) => duration(x, (ms) => (l.fileCheckFrequencyMs = ms)),
  httpCheckFrequency: (x, l) => duration(x, (ms) => (l.httpCheckFrequencyMs = ms)),
  runtimeRequestTimeout: (x, l) => duration(x, (ms) => (l.runtimeRequestTimeoutMs = ms)),
  address: (x, l) => void (l.address = v.ipAddress(str(x))),
  readOnlyPort: (x, l) => void (l.readOnlyPort = v.portOrOff(int(x))),
  healthzPort: (x, l) => void (l.healthzPort = v.portOrOff(int(x))),
  healthzBindAddress: (x, l) => void (l.healthzBindAddress = v.ipAddress(str(x))),
  podLogsDir: (x, l) => void (l.podLogsDir = v.absoluteDir(str(x))),
  podCIDR: (x, l) => void (l.podCIDR = str(x) === "" ? "" : v.podCIDR(str(x))),
  containerRuntimeEndpoint: (x, l) => void (l.containerRuntimeEndpoint = v.runtimeEndpoint(str(x))),
  cgroupDriver: (x, l) => void (l.cgroupDriver = v.cgroupDriver(str(x))),
  // Relative to the process's folder, as the kubelet reads it; "" means no host resolver.
  resolvConf: (x, l) => void (l.resolvConf = str(x)),
  featureGates: (x, l) => void (l.featureGates = gateMap(x)),
  registerNode: (x, l) => void (l.registerNode = bool(x)),
  registerWithTaints: (x, l) => void (l.registerWithTaints = taints(x)),
  maxPods: (x, l) => void (l.maxPods = v.nonNegativeInt32(int(x))),
  userNamespaces: (x, l) => nested(x, { idsPerPod: (y) => void (l.userNamespacesIdsPerPod = v.userNamespaceIdsPerPod(int(y))) }),
  nodeStatusUpdateFrequency: (x, l) => duration(x, (ms) => (l.nodeStatusUpdateFrequencyMs = ms)),
  nodeStatusReportFrequency: (x, l) => duration(x, (ms) => (l.nodeStatusReportFrequencyMs = ms)),
  nodeLeaseDurationSeconds: (x, l) => void (l.nodeLeaseDurationSeconds = v.positiveInt32(int(x))),
  kubeAPIQPS: (x, l) => void (l.kubeAPIQPS = num(x)),
  kubeAPIBurst: (x, l) => void (l.kubeAPIBurst = v.nonNegativeInt32(int(x))),
  eventRecordQPS: (x, l) => void (l.eventRecordQPS = v.nonNegativeInt32(int(x))),
  // The kubelet's defaulting turns a file's 0 (or no value) into 100; a flag's 0 stays 0.
  eventBurst: (x, l) => void (l.eventBurst = v.nonNegativeInt32(int(x)) || defaults.eventBurst),
  ...upkeepReaders,
  ...cgroupsReaders,
  enableServer: (x, l) => void (l.enableServer = bool(x)),
  enableSystemLogHandler: (x, l) => void (l.enableSystemLogHandler = bool(x)),
  enableSystemLogQuery: (x, l) => void (l.enableSystemLogQuery = bool(x)),
  port: (x, l) => void (l.port = v.port(int(x))),
  tlsCertFile: (x, l) => void (l.tlsCertFile = str(x)),
  tlsPrivateKeyFile: (x, l) => void (l.tlsPrivateKeyFile = str(x)),
  tlsMinVersion: (x, l) => void (l.tlsMinVersion = tlsMinVersion(str(x))),
  tlsCipherSuites: (x, l) => void (l.tlsCipherSuites = tlsCipherSuites(strList(x))),
  // The kubelet's defaulting turns 0 into 1000000.
  maxOpenFiles: (x, l) => void (l.maxOpenFiles = v.maxOpenFiles(int(x)) || defaults.maxOpenFiles),
  authentication: (x, l) =>
    nested(x, {
      x509: (y) => nested(y, { clientCAFile: (z) => void (l.clientCAFile = str(z)) }),
      webhook: (y) =>
        nested(y, {
          enabled: (z) => void (l.authenticationWebhookEnabled = bool(z)),
          cacheTTL: (z) => duration(z, (ms) => (l.authenticationWebhookCacheTTLMs = ms)),
        }),
      anonymous: (y) => nested(y, { enabled: (z) => void (l.anonymousAuth = bool(z)) }),
    }),
  authorization: (x, l) =>
    nested(x, {
      mode: (y) => void (l.authorizationMode = v.authorizationMode(str(y))),
      webhook: (y) =>
        nested(y, {
          cacheAuthorizedTTL: (z) => duration(z, (ms) => (l.authorizationCacheAuthorizedTTLMs = ms)),
          cacheUnauthorizedTTL: (z) => duration(z, (ms) => (l.authorizationCacheUnauthorizedTTLMs = ms)),
        }),
    }),
  clusterDNS: (x, l) => void (l.clusterDNS = v.clusterDNS(strList(x))),
  clusterDomain: (x, l) => void (l.clusterDomain = str(x)),
  allowedUnsafeSysctls: (x, l) => void (l.allowedUnsafeSysctls = strList(x)),
};

/**
 * A nested object (authentication, authorization) read strictly: an unknown key is an error
 * naming it, as the kubelet's strict decoding; the ValueError's message carries the sub-path.
 */
function nested(x: unknown, fields: Record<string, (y: unknown) => void>): void {
  if (!isObj(x)) throw new v.ValueError(`expected an object, found ${describe(x)}`);
  for (const [key, value] of Object.entries(x)) {
    if (!Object.hasOwn(fields, key)) throw new v.ValueError(`${key}: unknown field`);
    if (value === null) continue;
    try {
      fields[key](value);
    } catch (err) {
      if (err instanceof v.ValueError) throw new v.ValueError(`${key}${/^[A-Za-z0-9.]+: /.test(err.message) ? "." : ": "}${err.message}`);
      throw err;
    }
  }
}

function bool(x: unknown): boolean {
  if (typeof x !== "boolean") throw new v.ValueError(`expected true or false, found ${describe(x)}`);
  return x;
}
function num(x: unknown): number {
  if (typeof x !== "number" || !Number.isFinite(x)) throw new v.ValueError(`expected a number, found ${describe(x)}`);
  return x;
}
/** registerWithTaints: a list of v1.Taint objects ({key, value, effect}). */
function taints(x: unknown): ConfigLayer["registerWithTaints"] {
  if (!Array.isArray(x)) throw new v.ValueError(`expected a list of taints {key, value, effect}, found ${describe(x)}`);
  return x.map((t, i) => {
    if (!isObj(t)) throw new v.ValueError(`[${i}]: expected a taint {key, value, effect}, found ${describe(t)}`);
    for (const k of Object.keys(t)) if (!["key", "value", "effect", "timeAdded"].includes(k)) throw new v.ValueError(`[${i}].${k}: unknown field`);
    return v.taint(str(t.key), t.value === undefined || t.value === null ? undefined : str(t.value), str(t.effect));
  });
}

const loggingReaders: Record<string, (x: unknown, layer: ConfigLayer) => void> = {
  format: (x, l) => void (l.loggingFormat = v.loggingFormat(str(x))),
  verbosity: (x, l) => void (l.verbosity = v.verbosityLevel(int(x))),
};

export interface FileLayer {
  layer: ConfigLayer;
  /** Fields given that bunlet accepts for compatibility and does not act on ("logging.vmodule"). */
  ignored: string[];
}

/** Decodes the text of the config file at `path`; throws ConfigError naming the file and field. */
export function decodeConfigFile(path: string, text: string): FileLayer {
  const fail = (field: string, problem: string): never => {
    throw new ConfigError(field, `bunlet: ${path}: ${field === "--config" ? "" : `${field}: `}${problem}`);
  };
  let root: unknown;
  try {
    root = readYaml(text);
  } catch (err) {
    if (!(err instanceof YamlError)) throw err;
    if (err.path === "") fail("--config", `not valid YAML or JSON: ${err.message}`);
    fail(err.path, err.message);
  }
  if (!isObj(root)) fail("--config", `expected a KubeletConfiguration object, found ${describe(root ?? null)}`);
  const obj = root as Obj;
  if (obj.apiVersion !== KUBELET_CONFIG_API_VERSION) {
    fail("apiVersion", `expected ${JSON.stringify(KUBELET_CONFIG_API_VERSION)}, found ${describe(obj.apiVersion ?? null)}`);
  }
  if (obj.kind !== KUBELET_CONFIG_KIND) fail("kind", `expected ${JSON.stringify(KUBELET_CONFIG_KIND)}, found ${describe(obj.kind ?? null)}`);

  const layer: ConfigLayer = {};
  const ignored: string[] = [];
  const ignore = (field: string) => ignored.push(field);
  const read = (field: string, run: () => void) => {
    try {
      run();
    } catch (err) {
      if (err instanceof v.ValueError) fail(field, err.message);
      throw err;
    }
  };

  for (const [key, value] of Object.entries(obj)) {
    if (key === "apiVersion" || key === "kind") continue;
    // An explicit null is "unset", as Go's decoder leaves the zero value.
    if (value === null) continue;
    if (Object.hasOwn(readers, key)) read(key, () => readers[key](value, layer, dirname(path)));
    else if (key === "logging") {
      if (!isObj(value)) fail("logging", `expected an object, found ${describe(value)}`);
      for (const [sub, subValue] of Object.entries(value as Obj)) {
        const field = `logging.${sub}`;
        if (subValue === null) continue;
        if (Object.hasOwn(loggingReaders, sub)) read(field, () => loggingReaders[sub](subValue, layer));
        else if (ignoredLoggingFields.has(sub)) ignore(field);
        else fail(field, "unknown field");
      }
    } else if (ignoredKubeletFields.has(key)) ignore(key);
    else fail(key, "unknown field");
  }
  return { layer, ignored };
}
