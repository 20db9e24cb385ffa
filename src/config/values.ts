/**
 * Value checks shared by flags and the config file. Each throws ValueError with what was
 * expected and what was found; the caller adds the flag or field name (flags.ts, file.ts).
 */
import { posix } from "node:path";
import { ipFamily, parsePodCIDRs } from "../lib/index.ts";
import { DurationError, parseDuration } from "./duration.ts";
import type { AuthorizationMode, CgroupDriver, LoggingFormat, RegisterTaint } from "./types.ts";

export class ValueError extends Error {
  override readonly name = "ValueError";
}

/** A non-negative Go duration, in ms. */
export function durationMs(s: string): number {
  try {
    return parseDuration(s);
  } catch (err) {
    if (err instanceof DurationError) throw new ValueError(err.message);
    throw err;
  }
}

/** A period or timeout: a Go duration, greater than zero (zero would make a loop spin). */
export function positiveDuration(s: string): number {
  const ms = durationMs(s);
  if (ms <= 0) throw new ValueError(`must be greater than 0, found ${JSON.stringify(s)}`);
  return ms;
}

/** A TCP port where 0 means "off", as readOnlyPort and healthzPort use it. */
export function portOrOff(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new ValueError(`must be between 0 and 65535, inclusive, found ${n}`);
  }
  return n;
}

/** A decimal integer in flag syntax (Go's strconv.ParseInt base 0 would also take 0x; bunlet doesn't). */
export function intFromString(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) throw new ValueError(`expected an integer, found ${JSON.stringify(s)}`);
  return Number(s);
}

export function verbosityLevel(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31) {
    throw new ValueError(`expected a non-negative integer log level, found ${n}`);
  }
  return n;
}

/** Go's strconv.ParseBool spellings. */
export function boolFromString(s: string): boolean {
  if (["1", "t", "T", "true", "TRUE", "True"].includes(s)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(s)) return false;
  throw new ValueError(`expected true or false, found ${JSON.stringify(s)}`);
}

export function ipAddress(s: string): string {
  if (ipFamily(s) === undefined) throw new ValueError(`expected an IP address, found ${JSON.stringify(s)}`);
  return s;
}

/** The pod CIDR: an IPv4 or IPv6 network, or one of each separated by a comma (dual stack). */
export function podCIDR(s: string): string {
  if (!parsePodCIDRs(s)) {
    throw new ValueError(`expected a CIDR such as 10.88.0.0/16, or an IPv4 and an IPv6 CIDR separated by a comma, found ${JSON.stringify(s)}`);
  }
  return s;
}

/** A Linux network interface name: 1-15 characters, no slash, space or colon. */
export function interfaceName(s: string): string {
  if (!/^[A-Za-z0-9_.-]{1,15}$/.test(s)) {
    throw new ValueError(`expected an interface name of 1-15 letters, digits, '.', '_' or '-', found ${JSON.stringify(s)}`);
  }
  return s;
}

/** The kubelet's cgroup drivers. */
export function cgroupDriver(s: string): CgroupDriver {
  if (s !== "cgroupfs" && s !== "systemd") throw new ValueError(`expected "cgroupfs" or "systemd", found ${JSON.stringify(s)}`);
  return s;
}

export function loggingFormat(s: string): LoggingFormat {
  if (s !== "text" && s !== "json") {
    throw new ValueError(`unsupported log format ${JSON.stringify(s)}, expected "text" or "json"`);
  }
  return s;
}

/** "" (embedded containerd), unix:///path or an absolute socket path; bunlet speaks CRI over unix sockets only. */
export function runtimeEndpoint(s: string): string {
  if (s === "") return s;
  const path = s.startsWith("unix://") ? s.slice("unix://".length) : s;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path) || !posix.isAbsolute(path)) {
    throw new ValueError(`expected unix:///path/to/socket or an absolute socket path, found ${JSON.stringify(s)}`);
  }
  return s;
}

/** A file bunlet runs (--containerd): absolute, so it does not depend on bunlet's working directory. */
export function absolutePath(s: string): string {
  if (!posix.isAbsolute(s)) throw new ValueError(`must be an absolute path, found ${JSON.stringify(s)}`);
  return s;
}

/**
 * An image reference (--pod-infra-container-image): "" keeps the default. containerd parses the
 * rest when it starts; what could never be one (spaces, control characters, upper-case letters
 * before the tag) is refused here, before containerd is configured with it.
 */
export function imageReference(s: string): string {
  const name = s.replace(/[:@][^/]*$/, "");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\s\u0000-\u001f\u007f]/.test(s) || /[A-Z]/.test(name)) {
    throw new ValueError(`must be an image reference such as registry.k8s.io/pause:3.10.2, found ${JSON.stringify(s)}`);
  }
  return s;
}

/** The kubelet requires podLogsDir to be absolute and normalised; bunlet asks the same of its other directories. */
export function absoluteDir(s: string): string {
  if (!posix.isAbsolute(s)) throw new ValueError(`must be an absolute path, found ${JSON.stringify(s)}`);
  const normal = posix.normalize(s);
  if (normal !== s && normal + "/" !== s) {
    throw new ValueError(`must be a normalized path (${JSON.stringify(normal)}), found ${JSON.stringify(s)}`);
  }
  return s;
}

/**
 * --manifest-url-header syntax, as the kubelet's colon-separated multimap: "Name:Value" pairs,
 * comma-separated; a name may repeat. Empty pairs are skipped; spaces around name and value trimmed.
 */
export function headerPairs(s: string, into: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = { ...into };
  for (const pair of s.split(",")) {
    if (pair === "") continue;
    const colon = pair.indexOf(":");
    if (colon < 0) throw new ValueError(`malformed pair ${JSON.stringify(pair)}, expected Name:Value`);
    const name = pair.slice(0, colon).trim();
    if (name === "") throw new ValueError(`malformed pair ${JSON.stringify(pair)}, the header name is empty`);
    out[name] = [...(out[name] ?? []), pair.slice(colon + 1).trim()];
  }
  return out;
}

/** --cluster-dns / clusterDNS: IP addresses. */
export function clusterDNS(ips: string[]): string[] {
  return ips.map((ip) => ipAddress(ip.trim()));
}

/** --node-ip: one IP, or an IPv4 and an IPv6 one for dual stack; "" = the default route's. */
export function nodeIPs(s: string): string[] {
  if (s === "") return [];
  const ips = s.split(",").map((x) => x.trim());
  for (const ip of ips) ipAddress(ip);
  if (ips.length > 2 || (ips.length === 2 && ipFamily(ips[0]!) === ipFamily(ips[1]!))) {
    throw new ValueError(`expected one IP, or an IPv4 and an IPv6 address for dual stack, found ${JSON.stringify(s)}`);
  }
  if (ips.some((ip) => ip === "0.0.0.0" || ip === "::")) throw new ValueError(`the unspecified address cannot be the node's IP, found ${JSON.stringify(s)}`);
  return ips;
}

const qualifiedNamePart = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A label or taint key: [prefix/]name, as validation.IsQualifiedName checks it. */
export function qualifiedName(key: string): string {
  const slash = key.lastIndexOf("/");
  const prefix = slash < 0 ? "" : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if ((slash >= 0 && (prefix.length === 0 || prefix.length > 253 || !dnsSubdomain.test(prefix))) || !qualifiedNamePart.test(name)) {
    throw new ValueError(`invalid key ${JSON.stringify(key)}: expected [DNS subdomain/]name, the name 1-63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric`);
  }
  return key;
}

export function labelValue(value: string, key: string): string {
  if (value !== "" && !qualifiedNamePart.test(value)) {
    throw new ValueError(`invalid value ${JSON.stringify(value)} for label ${JSON.stringify(key)}: at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric`);
  }
  return value;
}

/** The kubernetes.io / k8s.io labels a kubelet may set on its own Node (kubeletapis.IsKubeletLabel). */
function isAllowedKubernetesLabel(key: string): boolean {
  const slash = key.indexOf("/");
  const ns = slash < 0 ? "" : key.slice(0, slash);
  const isK8s = (d: string) => d === "kubernetes.io" || d.endsWith(".kubernetes.io") || d === "k8s.io" || d.endsWith(".k8s.io");
  if (!isK8s(ns)) return true;
  const allowed = new Set([
    "kubernetes.io/hostname",
    "kubernetes.io/instance-type",
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "beta.kubernetes.io/instance-type",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "node.kubernetes.io/instance-type",
  ]);
  const allowedNamespaces = ["kubelet.kubernetes.io", "node.kubernetes.io"];
  return allowed.has(key) || allowedNamespaces.some((d) => ns === d || ns.endsWith(`.${d}`));
}

/**
 * pflag's mapStringString ("k=v,...") and LangleSeparatedMapStringString ("k<v,..."), merged over
 * `into` as repeated flags merge; a pair without a key is an error naming it.
 */
export function separatedMap(raw: string, sep: "=" | "<", into: Record<string, string> = {}): Record<string, string> {
  const out = { ...into };
  for (const item of raw.split(",")) {
    if (item.trim() === "") continue;
    const at = item.indexOf(sep);
    if (at <= 0) throw new ValueError(`malformed pair ${JSON.stringify(item)}, expect string${sep}string`);
    out[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return out;
}

/** --node-labels: 'key=value,...'; the kubelet refuses kubernetes.io / k8s.io labels it may not set. */
export function nodeLabels(s: string, into: Record<string, string>): Record<string, string> {
  const out = { ...into };
  for (const pair of s.split(",")) {
    if (pair.trim() === "") continue;
    const eq = pair.indexOf("=");
    if (eq < 0) throw new ValueError(`malformed pair ${JSON.stringify(pair)}, expect string=string`);
    const key = qualifiedName(pair.slice(0, eq).trim());
    if (!isAllowedKubernetesLabel(key)) {
      throw new ValueError(`unknown 'kubernetes.io' or 'k8s.io' label ${JSON.stringify(key)}: a node may set only its default labels and those under kubelet.kubernetes.io/ and node.kubernetes.io/`);
    }
    out[key] = labelValue(pair.slice(eq + 1).trim(), key);
  }
  return out;
}

const taintEffects = new Set(["NoSchedule", "PreferNoSchedule", "NoExecute"]);

export function taint(key: string, value: string | undefined, effect: string): RegisterTaint {
  qualifiedName(key);
  if (value !== undefined && value !== "") labelValue(value, key);
  if (!taintEffects.has(effect)) throw new ValueError(`invalid taint effect ${JSON.stringify(effect)} for ${JSON.stringify(key)}, expected NoSchedule, PreferNoSchedule or NoExecute`);
  return value === undefined || value === "" ? { key, effect: effect as RegisterTaint["effect"] } : { key, value, effect: effect as RegisterTaint["effect"] };
}

/** --register-with-taints: 'key=value:Effect' or 'key:Effect', comma-separated. */
export function taintList(s: string): RegisterTaint[] {
  const out: RegisterTaint[] = [];
  for (const spec of s.split(",")) {
    if (spec.trim() === "") continue;
    const colon = spec.lastIndexOf(":");
    if (colon <= 0 || !taintEffects.has(spec.slice(colon + 1))) {
      throw new ValueError(`invalid taint spec ${JSON.stringify(spec)}, expected key=value:effect with effect ${[...taintEffects].join(", ")}`);
    }
    const kv = spec.slice(0, colon);
    const eq = kv.indexOf("=");
    out.push(taint(eq < 0 ? kv : kv.slice(0, eq), eq < 0 ? undefined : kv.slice(eq + 1), spec.slice(colon + 1)));
  }
  return out;
}

/** A non-negative int32 (maxPods, kubeAPIBurst, nodeLeaseDurationSeconds > 0 is checked by the caller). */
export function nonNegativeInt32(n: number): number {
  if (Number.isInteger(n) && n > 2 ** 31 - 1) throw new ValueError(`value out of range for int32, found ${n}`);
  if (!Number.isInteger(n) || n < 0) throw new ValueError(`expected a non-negative integer, found ${n}`);
  return n;
}

/** userNamespaces.idsPerPod (validation_linux.go): a multiple of 65536, at least 65536, at most 2^32 - 1. */
export function userNamespaceIdsPerPod(n: number): number {
  if (n < 65536) throw new ValueError(`must not be less than 65536, found ${n}`);
  if (n % 65536 !== 0) throw new ValueError(`must be a multiple of 65536, found ${n}`);
  if (n > 2 ** 32 - 1) throw new ValueError(`must not be more than ${2 ** 32 - 1}, found ${n}`);
  return n;
}

export function positiveInt32(n: number): number {
  if (nonNegativeInt32(n) === 0) throw new ValueError("must be greater than 0, found 0");
  return n;
}

export function port(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new ValueError(`expected a port between 1 and 65535, found ${n}`);
  return n;
}

/** maxOpenFiles: the kubelet's validation refuses a negative number. */
export function maxOpenFiles(n: number): number {
  if (n < 0) throw new ValueError(`maxOpenFiles (--max-open-files) ${n} must not be a negative number`);
  return n;
}

export function authorizationMode(s: string): AuthorizationMode {
  if (s === "Webhook" || s === "AlwaysAllow") return s;
  throw new ValueError(`expected Webhook or AlwaysAllow, found ${JSON.stringify(s)}`);
}
