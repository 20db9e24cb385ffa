/**
 * The DNS config of a pod sandbox (the kubelet's GetPodDNS): ClusterFirst (and
 * ClusterFirstWithHostNet for a host-network pod) points at --cluster-dns with the cluster's
 * search domains before the node's and ndots:5; Default, a host-network ClusterFirst pod, and
 * ClusterFirst without --cluster-dns use the node's resolver settings; None starts empty. The
 * pod's own dnsConfig is merged in last.
 */
import { readFileSync } from "node:fs";
import type { Pod } from "../api/index.ts";

export interface DnsConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

/** Parses resolv.conf text (nameserver, search/domain, options). */
export function parseResolvConf(text: string): DnsConfig {
  const cfg: DnsConfig = { servers: [], searches: [], options: [] };
  for (const raw of text.split("\n")) {
    const line = raw.replace(/[#;].*$/, "").trim();
    const [key, ...fields] = line.split(/\s+/);
    if (key === "nameserver" && fields[0]) cfg.servers.push(fields[0]);
    else if (key === "search" || key === "domain") cfg.searches = fields;
    else if (key === "options") cfg.options.push(...fields);
  }
  return cfg;
}

/**
 * The node's resolver settings from `path` (the kubelet's resolvConf, default /etc/resolv.conf),
 * or an empty config when the path is "" (no host resolver, as the kubelet) or cannot be read.
 */
export function hostDnsConfig(path = "/etc/resolv.conf"): DnsConfig {
  if (path === "") return { servers: [], searches: [], options: [] };
  try {
    return parseResolvConf(readFileSync(path, "utf8"));
  } catch {
    return { servers: [], searches: [], options: [] };
  }
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}

/** --cluster-dns and --cluster-domain. */
export interface ClusterDns {
  servers: string[];
  domain: string;
}

type DnsType = "cluster" | "host" | "none";

/** getPodDNSType: which resolver a pod gets by its dnsPolicy and hostNetwork. */
function podDnsType(pod: Pod): DnsType {
  switch (pod.spec.dnsPolicy ?? "ClusterFirst") {
    case "None":
      return "none";
    case "ClusterFirstWithHostNet":
      return "cluster";
    case "ClusterFirst":
      return pod.spec.hostNetwork ? "host" : "cluster";
    default:
      return "host";
  }
}

/** generateSearchesForDNSClusterFirst: the cluster's domains, then the node's. */
function clusterSearches(hostSearches: string[], namespace: string, domain: string): string[] {
  if (domain === "") return hostSearches;
  return unique([`${namespace}.svc.${domain}`, `svc.${domain}`, domain, ...hostSearches]);
}

export function podDnsConfig(pod: Pod, node: DnsConfig, cluster: ClusterDns = { servers: [], domain: "" }): DnsConfig {
  const type = podDnsType(pod);
  let base: DnsConfig = node;
  if (type === "none") base = { servers: [], searches: [], options: [] };
  else if (type === "cluster" && cluster.servers.length > 0) {
    base = { servers: [...cluster.servers], searches: clusterSearches(node.searches, pod.metadata.namespace ?? "", cluster.domain), options: ["ndots:5"] };
  }
  const extra = pod.spec.dnsConfig;
  // Options are name[:value]; a pod option replaces a node option of the same name.
  const options = new Map<string, string>();
  for (const o of base.options) options.set(o.split(":")[0], o);
  for (const o of extra?.options ?? []) options.set(o.name, o.value === undefined ? o.name : `${o.name}:${o.value}`);
  return {
    servers: unique([...base.servers, ...(extra?.nameservers ?? [])]),
    searches: unique([...base.searches, ...(extra?.searches ?? [])]),
    options: [...options.values()],
  };
}
