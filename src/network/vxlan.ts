/**
 * The VXLAN fallback, planned as a pure step: a Node whose InternalIP is not on a directly
 * connected network (another subnet, a router in between) is reached through the kernel's vxlan
 * device instead of a host-gw route, as flannel's vxlan backend with DirectRouting does. Every
 * node's VTEP MAC is derived from its InternalIP, so no Node annotation has to carry it: the
 * route leads to the peer's pod CIDR network address on the device (onlink), a permanent neighbour
 * entry maps that address to the peer's MAC, and an FDB entry sends that MAC to the peer's
 * InternalIP over UDP 8472. IPv4 only.
 */
import type { NodeRoute } from "./routes.ts";

/** The device every bunlet of a cluster uses; one per host (several bunlets on one host need no VXLAN to each other). */
export const VXLAN_DEVICE = "bunlet.vxlan";
export const VXLAN_ID = 1;
export const VXLAN_PORT = 8472;

/** A peer reached over VXLAN: its VTEP MAC, its pod CIDR's network address (the route's next hop) and its InternalIP. */
export interface VxlanPeer {
  mac: string;
  gateway: string;
  underlay: string;
}

/** 0e:ba + the four bytes of the IPv4 address: locally administered, unicast, the same on every node. */
export function vtepMac(ipv4: string): string {
  return ["0e", "ba", ...ipv4.split(".").map((b) => Number(b).toString(16).padStart(2, "0"))].join(":");
}

/** The network address of an IPv4 CIDR (10.90.1.0/24 → 10.90.1.0), the VTEP's address on the device. */
export function networkAddress(cidr: string): string {
  const [ip, prefix] = cidr.split("/");
  const value = ip!.split(".").reduce((n, b) => n * 256 + Number(b), 0);
  const size = 2 ** (32 - Number(prefix));
  const net = Math.floor(value / size) * size;
  return [24, 16, 8, 0].map((s) => Math.floor(net / 2 ** s) % 256).join(".");
}

/** A host-gw route rewritten to go through the vxlan device, and the peer it needs. */
export function overVxlan(route: NodeRoute): { route: NodeRoute & { dev: string }; peer: VxlanPeer } {
  const gateway = networkAddress(route.dst);
  return { route: { ...route, via: gateway, dev: VXLAN_DEVICE }, peer: { mac: vtepMac(route.via), gateway, underlay: route.via } };
}

/**
 * What to change in the device's neighbour and FDB entries so that only `desired` peers remain.
 * A present entry whose gateway a desired peer keeps is overwritten by setting that peer, so only
 * its FDB entry is removed (gateway ""); an empty side means nothing to remove there.
 */
export function planPeers(desired: readonly VxlanPeer[], present: readonly VxlanPeer[]): { set: VxlanPeer[]; remove: VxlanPeer[] } {
  const key = (p: VxlanPeer) => `${p.mac} ${p.gateway} ${p.underlay}`;
  const want = new Set(desired.map(key));
  const have = new Set(present.map(key));
  const kept = new Set(desired.map((p) => p.gateway));
  const remove = present
    .filter((p) => !want.has(key(p)))
    .map((p) => (kept.has(p.gateway) ? { ...p, gateway: "" } : p))
    .filter((p) => p.gateway !== "" || p.underlay !== "");
  return { set: desired.filter((p) => !have.has(key(p))), remove };
}
