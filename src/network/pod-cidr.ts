/**
 * Which range the node's pods get. With --pod-cidr the flag wins (the kubelet's standalone
 * podCIDR); joined without it, the Node's spec.podCIDRs (dual stack) or spec.podCIDR, which the
 * controller-manager's node IPAM assigns (--allocate-node-cidrs), as kubenet and k3s take it.
 */
import type { Node } from "kubernetes-types/core/v1";
import { parsePodCIDRs } from "../lib/index.ts";

export type PodCIDRChoice =
  /** `cidrs` is the CRI's form: one CIDR, or an IPv4 and an IPv6 one comma-separated. */
  | { source: "flag" | "node"; cidrs: string }
  /** The Node is not seen yet, or the controller-manager has not assigned it a range. */
  | { source: "unassigned" }
  /** The Node carries a range bunlet cannot use; `reason` says what was found. */
  | { source: "invalid"; reason: string };

/** The Node's ranges in the order the apiserver lists them (podCIDRs[0] is podCIDR). */
export function nodePodCIDRs(node: Node | undefined): string[] {
  const spec = node?.spec;
  if (spec?.podCIDRs && spec.podCIDRs.length > 0) return spec.podCIDRs;
  return spec?.podCIDR ? [spec.podCIDR] : [];
}

export function choosePodCIDR(flag: string, node: Node | undefined): PodCIDRChoice {
  if (flag !== "") return { source: "flag", cidrs: flag };
  const ranges = nodePodCIDRs(node);
  if (ranges.length === 0) return { source: "unassigned" };
  const cidrs = ranges.join(",");
  if (!parsePodCIDRs(cidrs)) {
    return { source: "invalid", reason: `Node ${node?.metadata?.name ?? ""} has spec.podCIDRs ${JSON.stringify(ranges)}, not one CIDR or an IPv4 and an IPv6 one` };
  }
  return { source: "node", cidrs };
}
