/**
 * The node's IPs for pod status (hostIP/hostIPs), the kubelet's nodeutil.GetNodeHostIPs without an
 * apiserver: the first non-loopback IPv4 address, then the first IPv6 one, of the host's
 * interfaces, in the order the OS lists them. A host with no network falls back to loopback.
 */
import { networkInterfaces, type NetworkInterfaceInfo } from "node:os";

export function nodeHostIPs(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): string[] {
  const all = Object.values(interfaces).flatMap((list) => list ?? []);
  const usable = all.filter((a) => !a.internal && !(a.family === "IPv6" && a.address.toLowerCase().startsWith("fe80:")));
  const v4 = usable.find((a) => a.family === "IPv4");
  const v6 = usable.find((a) => a.family === "IPv6");
  const ips = [v4, v6].filter((a) => a !== undefined).map((a) => a.address);
  return ips.length > 0 ? ips : ["127.0.0.1"];
}
