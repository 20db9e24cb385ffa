/**
 * The node's IPs: --node-ip when given, else the first IPv4 address of the interface that holds
 * the default route (the kubelet's last resort, utilnet.ChooseHostInterface, which bunlet uses
 * directly: it has no cloud provider and does not resolve its own name). Chosen once, in
 * chooseNodeIPs, for both the Node's InternalIPs and every pod's hostIP/hostIPs, so the two never
 * differ on a host with several interfaces.
 */
import { readFileSync } from "node:fs";
import { networkInterfaces, type NetworkInterfaceInfo } from "node:os";

/** The IPv4 routing table, for the default route's interface; empty when /proc is not readable. */
export function readProcNetRoute(): string {
  try {
    return readFileSync("/proc/net/route", "utf8");
  } catch {
    return "";
  }
}

/** The interface of the IPv4 default route with the lowest metric, from /proc/net/route's text. */
export function defaultRouteInterface(procNetRoute: string): string | undefined {
  let best: { iface: string; metric: number } | undefined;
  for (const line of procNetRoute.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 8) continue;
    const [iface, destination, , flags, , , metric, mask] = f;
    const up = (parseInt(flags!, 16) & 0x1) !== 0;
    if (destination !== "00000000" || mask !== "00000000" || !up) continue;
    const m = Number(metric);
    if (!best || m < best.metric) best = { iface: iface!, metric: m };
  }
  return best?.iface;
}

/** The first global IPv4 address of the default route's interface, else of any interface. */
export function chooseHostIP(procNetRoute: string, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): string | undefined {
  const usable = (list: NetworkInterfaceInfo[] | undefined) => (list ?? []).find((a) => a.family === "IPv4" && !a.internal);
  const iface = defaultRouteInterface(procNetRoute);
  const onDefault = iface ? usable(interfaces[iface]) : undefined;
  if (onDefault) return onDefault.address;
  for (const list of Object.values(interfaces)) {
    const a = usable(list);
    if (a) return a.address;
  }
  return undefined;
}

/** The first global IPv6 address of any interface (an IPv6-only host's last resort). */
function firstGlobalIPv6(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string | undefined {
  for (const list of Object.values(interfaces)) {
    const a = (list ?? []).find((x) => x.family === "IPv6" && !x.internal && !x.address.toLowerCase().startsWith("fe80:"));
    if (a) return a.address;
  }
  return undefined;
}

/**
 * The node's IPs as the Node reports them (InternalIP) and pods see them (status.hostIP/hostIPs):
 * the configured --node-ip list when given, else the default route's IPv4 address (chooseHostIP),
 * else a global IPv6 address; empty when the host has no usable address at all.
 */
export function chooseNodeIPs(configured: readonly string[], procNetRoute: string, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): string[] {
  if (configured.length > 0) return [...configured];
  const ip = chooseHostIP(procNetRoute, interfaces) ?? firstGlobalIPv6(interfaces);
  return ip ? [ip] : [];
}

/**
 * The pods' status.hostIP/hostIPs: the node's IPs, or loopback when the host has none (bunlet
 * then still starts pods, and the downward API's status.hostIP has a value).
 */
export function podHostIPs(nodeIPs: readonly string[]): string[] {
  return nodeIPs.length > 0 ? [...nodeIPs] : ["127.0.0.1"];
}
