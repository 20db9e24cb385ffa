/**
 * The DNS config of a pod sandbox (the kubelet's GetPodDNS): the node's resolver settings for
 * Default and (without cluster DNS, which bunlet does not have) ClusterFirst, nothing for None,
 * then the pod's own dnsConfig appended.
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

export function podDnsConfig(pod: Pod, node: DnsConfig): DnsConfig {
  const base = pod.spec.dnsPolicy === "None" ? { servers: [], searches: [], options: [] } : node;
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
