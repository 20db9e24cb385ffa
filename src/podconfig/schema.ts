/**
 * The JSON types of the Pod fields bunlet reads. The kubelet gets this check for free from Go's
 * typed decoding ("cannot unmarshal string into ... of type int32"); here a manifest is a plain
 * JSON tree, so before defaulting and validation every known field is checked for its type, and
 * `null` is dropped (Go decodes it to the zero value, i.e. "not set"). Unknown fields are kept.
 * Quantities are decoded as resource.Quantity decodes them and replaced by their canonical form
 * ("0.5" becomes "500m"); one that does not parse is an Invalid error with apimachinery's message.
 */
import { Quantity, QuantityError } from "../api/index.ts";
import { fieldErrors, type FieldError } from "./errors.ts";

type Shape =
  | "string"
  | "integer"
  | "boolean"
  | "intOrString"
  | "quantity"
  | "stringMap"
  | "quantityMap"
  | "object"
  | { readonly [key: string]: Shape }
  | readonly [Shape];

const s = "string" as const;
const int = "integer" as const;
const bool = "boolean" as const;

const seLinux = { user: s, role: s, type: s, level: s };
const seccomp = { type: s, localhostProfile: s };
const keyToPath = { key: s, path: s, mode: int };
const keyRef = { name: s, key: s, optional: bool };
const nameRef = { name: s, optional: bool };
const httpGet = {
  path: s,
  port: "intOrString",
  host: s,
  scheme: s,
  httpHeaders: [{ name: s, value: s }],
} as const;
const tcpSocket = { port: "intOrString", host: s } as const;
const exec = { command: [s] } as const;
const handler = { exec, httpGet, tcpSocket, sleep: { seconds: int } } as const;
const probe = {
  exec,
  httpGet,
  tcpSocket,
  grpc: { port: int, service: s },
  initialDelaySeconds: int,
  timeoutSeconds: int,
  periodSeconds: int,
  successThreshold: int,
  failureThreshold: int,
  terminationGracePeriodSeconds: int,
} as const;

const container = {
  name: s,
  image: s,
  command: [s],
  args: [s],
  workingDir: s,
  ports: [{ name: s, containerPort: int, hostPort: int, hostIP: s, protocol: s }],
  env: [
    {
      name: s,
      value: s,
      valueFrom: {
        fieldRef: { fieldPath: s, apiVersion: s },
        resourceFieldRef: { resource: s, containerName: s, divisor: "quantity" },
        configMapKeyRef: keyRef,
        secretKeyRef: keyRef,
      },
    },
  ],
  envFrom: [{ prefix: s, configMapRef: nameRef, secretRef: nameRef }],
  resources: { limits: "quantityMap", requests: "quantityMap", claims: [{ name: s }] },
  volumeMounts: [
    { name: s, mountPath: s, readOnly: bool, subPath: s, subPathExpr: s, mountPropagation: s },
  ],
  volumeDevices: [{ name: s, devicePath: s }],
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  lifecycle: { postStart: handler, preStop: handler, stopSignal: s },
  terminationMessagePath: s,
  terminationMessagePolicy: s,
  imagePullPolicy: s,
  securityContext: {
    privileged: bool,
    runAsUser: int,
    runAsGroup: int,
    runAsNonRoot: bool,
    readOnlyRootFilesystem: bool,
    allowPrivilegeEscalation: bool,
    capabilities: { add: [s], drop: [s] },
    seccompProfile: seccomp,
    appArmorProfile: seccomp,
    seLinuxOptions: seLinux,
    procMount: s,
  },
  stdin: bool,
  stdinOnce: bool,
  tty: bool,
  restartPolicy: s,
  restartPolicyRules: [{ action: s, exitCodes: { operator: s, values: [int] } }],
} as const;

const downwardAPIFile = {
  path: s,
  fieldRef: { fieldPath: s, apiVersion: s },
  resourceFieldRef: { resource: s, containerName: s, divisor: "quantity" },
  mode: int,
} as const;

const volume = {
  name: s,
  hostPath: { path: s, type: s },
  emptyDir: { medium: s, sizeLimit: "quantity" },
  secret: { secretName: s, items: [keyToPath], defaultMode: int, optional: bool },
  configMap: { name: s, items: [keyToPath], defaultMode: int, optional: bool },
  persistentVolumeClaim: { claimName: s, readOnly: bool },
  projected: { sources: [{ downwardAPI: { items: [downwardAPIFile] } }], defaultMode: int },
  downwardAPI: { items: [downwardAPIFile], defaultMode: int },
} as const;

const podShape = {
  apiVersion: s,
  kind: s,
  metadata: {
    name: s,
    generateName: s,
    namespace: s,
    uid: s,
    resourceVersion: s,
    generation: int,
    deletionTimestamp: s,
    deletionGracePeriodSeconds: int,
    labels: "stringMap",
    annotations: "stringMap",
    ownerReferences: ["object"],
  },
  spec: {
    volumes: [volume],
    initContainers: [container],
    containers: [container],
    ephemeralContainers: [container],
    restartPolicy: s,
    terminationGracePeriodSeconds: int,
    activeDeadlineSeconds: int,
    dnsPolicy: s,
    dnsConfig: { nameservers: [s], searches: [s], options: [{ name: s, value: s }] },
    nodeSelector: "stringMap",
    serviceAccountName: s,
    serviceAccount: s,
    automountServiceAccountToken: bool,
    nodeName: s,
    hostNetwork: bool,
    hostPID: bool,
    hostIPC: bool,
    hostUsers: bool,
    shareProcessNamespace: bool,
    securityContext: {
      runAsUser: int,
      runAsGroup: int,
      runAsNonRoot: bool,
      fsGroup: int,
      supplementalGroups: [int],
      sysctls: [{ name: s, value: s }],
      seccompProfile: seccomp,
      seLinuxOptions: seLinux,
    },
    imagePullSecrets: [{ name: s }],
    hostname: s,
    hostnameOverride: s,
    setHostnameAsFQDN: bool,
    subdomain: s,
    hostAliases: [{ ip: s, hostnames: [s] }],
    schedulerName: s,
    tolerations: [{ key: s, operator: s, value: s, effect: s, tolerationSeconds: int }],
    priority: int,
    priorityClassName: s,
    enableServiceLinks: bool,
    preemptionPolicy: s,
    runtimeClassName: s,
    resourceClaims: ["object"],
    overhead: "quantityMap",
    affinity: "object",
    os: { name: s },
  },
  status: "object",
} as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function check(value: unknown, shape: Shape, path: string, errs: FieldError[]): void {
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return void errs.push(fieldErrors.typeInvalid(path, value, "an array"));
    value.forEach((item, i) => check(item, shape[0], `${path}[${i}]`, errs));
    return;
  }
  if (typeof shape === "object") {
    if (!isObject(value)) return void errs.push(fieldErrors.typeInvalid(path, value, "an object"));
    for (const [key, sub] of Object.entries(shape as Record<string, Shape>)) {
      if (value[key] === null) delete value[key];
      if (value[key] === undefined) continue;
      if (sub === "quantity") setQuantity(value, key, value[key], join(path, key), errs);
      else if (sub === "quantityMap" && isObject(value[key])) {
        const map = value[key] as Record<string, unknown>;
        // A null element is a zero Quantity, as Go's decoder makes it.
        for (const [name, q] of Object.entries(map)) setQuantity(map, name, q ?? 0, `${join(path, key)}[${name}]`, errs);
      } else check(value[key], sub, join(path, key), errs);
    }
    return;
  }
  const ok = scalarMatches(value, shape);
  if (!ok) errs.push(fieldErrors.typeInvalid(path, value, expected[shape]));
}

/** Puts the canonical form of a quantity in place, or records why it is not one and drops it. */
function setQuantity(parent: Record<string, unknown>, key: string, raw: unknown, path: string, errs: FieldError[]): void {
  if (typeof raw !== "string" && typeof raw !== "number") {
    errs.push(fieldErrors.typeInvalid(path, raw, expected.quantity));
    return;
  }
  try {
    parent[key] = Quantity.fromJSON(raw).toString();
  } catch (err) {
    if (!(err instanceof QuantityError)) throw err;
    errs.push(fieldErrors.invalid(path, raw, err.message));
    delete parent[key];
  }
}

const expected: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  boolean: "a boolean",
  intOrString: "an integer or a string",
  quantity: "a quantity (string or number)",
  stringMap: "a map of strings",
  quantityMap: "a map of quantities",
  object: "an object",
};

function scalarMatches(value: unknown, shape: string): boolean {
  switch (shape) {
    case "string":
      return typeof value === "string";
    case "integer":
      return Number.isSafeInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "intOrString":
      return typeof value === "string" || Number.isSafeInteger(value);
    case "stringMap":
      return isObject(value) && Object.values(value).every((v) => typeof v === "string");
    default:
      return isObject(value);
  }
}

/** Checks the known fields of a decoded Pod in place (dropping nulls); returns what is wrong. */
export function checkPodTypes(pod: Record<string, unknown>, path = ""): FieldError[] {
  const errs: FieldError[] = [];
  check(pod, podShape, path, errs);
  return errs;
}
