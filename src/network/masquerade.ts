/**
 * The pod network's iptables rules, rendered as iptables-restore input (pure). With host-gw the
 * bridge plugin's ipMasq is off (it masquerades everything leaving its own node's subnet, pod
 * traffic to other nodes included); instead one chain in nat POSTROUTING lets traffic between
 * the cluster's pod ranges keep its source and masquerades the rest. A filter chain accepts the
 * pod ranges in FORWARD, as flannel does, for hosts whose FORWARD policy is DROP.
 */
import { parsePodCIDRs } from "../lib/index.ts";

export const POSTROUTING_CHAIN = "BUNLET-POSTROUTING";
export const FORWARD_CHAIN = "BUNLET-FORWARD";

/** This node's pod ranges and every range of the cluster (all Nodes' podCIDRs, this one's too). */
export interface MasqueradeInput {
  local: readonly string[];
  cluster: readonly string[];
}

const MULTICAST = { 4: "224.0.0.0/4", 6: "ff00::/8" } as const;

/**
 * The iptables-restore (`family` 4) or ip6tables-restore (6) input for --noflush: declaring the
 * chains flushes them, so each call replaces bunlet's rules as a whole and touches nothing else.
 */
export function renderRules(input: MasqueradeInput, family: 4 | 6): string {
  const ofFamily = (list: readonly string[]) => [...new Set(list)].filter((c) => parsePodCIDRs(c)?.[0]?.family === family).sort();
  const local = ofFamily(input.local);
  const cluster = ofFamily([...input.cluster, ...input.local]);
  const nat = [`:${POSTROUTING_CHAIN} - [0:0]`];
  for (const src of local) {
    for (const dst of cluster) {
      nat.push(`-A ${POSTROUTING_CHAIN} -s ${src} -d ${dst} -m comment --comment "bunlet: pod to pod, source kept" -j RETURN`);
    }
    nat.push(`-A ${POSTROUTING_CHAIN} -s ${src} ! -d ${MULTICAST[family]} -m comment --comment "bunlet: leaving the pod ranges" -j MASQUERADE`);
  }
  const filter = [`:${FORWARD_CHAIN} - [0:0]`];
  for (const cidr of cluster) {
    filter.push(`-A ${FORWARD_CHAIN} -s ${cidr} -m comment --comment "bunlet: pod traffic" -j ACCEPT`);
    filter.push(`-A ${FORWARD_CHAIN} -d ${cidr} -m comment --comment "bunlet: pod traffic" -j ACCEPT`);
  }
  return ["*nat", ...nat, "COMMIT", "*filter", ...filter, "COMMIT", ""].join("\n");
}

/** The jumps into bunlet's chains: [table, built-in chain, chain]. */
export const JUMPS: readonly (readonly [string, string, string])[] = [
  ["nat", "POSTROUTING", POSTROUTING_CHAIN],
  ["filter", "FORWARD", FORWARD_CHAIN],
];
