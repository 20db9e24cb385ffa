/**
 * host-gw routing, planned as a pure step: one route per other Node's pod CIDR via that Node's
 * InternalIP of the same family (what flannel's host-gw backend keeps), compared with the routes
 * bunlet left in the kernel (marked with its own protocol number) to give what to add, replace
 * and delete.
 */
import type { Node } from "kubernetes-types/core/v1";
import { ipFamily, parsePodCIDRs } from "../lib/index.ts";
import { nodePodCIDRs } from "./pod-cidr.ts";

/** A route to a pod range through another node. */
export interface PodRoute {
  dst: string;
  via: string;
  /** Set for a route through the vxlan device (onlink); a host-gw route leaves the device to the kernel. */
  dev?: string;
}

/** A desired route and the Node it leads to (for logs). */
export interface NodeRoute extends PodRoute {
  node: string;
}

/** A Node that gets no route, and why. */
export interface SkippedNode {
  node: string;
  reason: string;
}

export interface RoutePlan {
  add: NodeRoute[];
  replace: NodeRoute[];
  delete: PodRoute[];
}

function internalIP(node: Node, family: 4 | 6): string | undefined {
  return node.status?.addresses?.find((a) => a.type === "InternalIP" && ipFamily(a.address) === family)?.address;
}

/**
 * The routes this node should have: every other Node's ranges via its InternalIP. A Node on this
 * very host (its InternalIP is one of `localIPs`, several bunlets on one machine) needs no route;
 * a range already claimed (by this node or an earlier Node by name) is not routed twice.
 */
export function desiredRoutes(nodes: readonly Node[], self: string, localIPs: ReadonlySet<string>): { routes: NodeRoute[]; skipped: SkippedNode[] } {
  const routes: NodeRoute[] = [];
  const skipped: SkippedNode[] = [];
  const me = nodes.find((n) => n.metadata?.name === self);
  const claimed = new Set(nodePodCIDRs(me));
  const others = nodes.filter((n) => n.metadata?.name !== self).sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  for (const node of others) {
    const name = node.metadata?.name ?? "";
    const ranges = nodePodCIDRs(node);
    if (ranges.length === 0) continue; // not assigned yet: its Node update brings it
    const cidrs = parsePodCIDRs(ranges.join(","));
    if (!cidrs) {
      skipped.push({ node: name, reason: `spec.podCIDRs ${JSON.stringify(ranges)} is not one CIDR or an IPv4 and an IPv6 one` });
      continue;
    }
    for (const cidr of cidrs) {
      const via = internalIP(node, cidr.family);
      if (via === undefined) {
        skipped.push({ node: name, reason: `no IPv${cidr.family} InternalIP for its pod CIDR ${cidr.text}` });
      } else if (localIPs.has(via)) {
        skipped.push({ node: name, reason: `its InternalIP ${via} is an address of this host` });
      } else if (claimed.has(cidr.text)) {
        skipped.push({ node: name, reason: `its pod CIDR ${cidr.text} is already routed elsewhere` });
      } else {
        claimed.add(cidr.text);
        routes.push({ dst: cidr.text, via, node: name });
      }
    }
  }
  return { routes, skipped };
}

/** What to change so that `present` (bunlet's routes in the kernel) becomes `desired`. */
export function planRoutes(desired: readonly NodeRoute[], present: readonly PodRoute[]): RoutePlan {
  const now = new Map(present.map((r) => [r.dst, r]));
  const wanted = new Set(desired.map((r) => r.dst));
  return {
    add: desired.filter((r) => !now.has(r.dst)),
    replace: desired.filter((r) => now.has(r.dst) && now.get(r.dst)!.via !== r.via),
    delete: present.filter((r) => !wanted.has(r.dst)),
  };
}
