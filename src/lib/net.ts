/**
 * IP addresses and networks as Go's net package reads them, in one place for flags, config
 * files, the CNI config and pod IPs.
 */
import { isIP } from "node:net";

export type IPFamily = 4 | 6;

/** 4 or 6 for an address (no zone, no brackets), undefined for anything else. */
export function ipFamily(address: string): IPFamily | undefined {
  if (address.includes("%")) return undefined;
  const family = isIP(address);
  return family === 4 || family === 6 ? family : undefined;
}

export interface CIDR {
  /** As written, e.g. "10.88.0.0/16". */
  text: string;
  family: IPFamily;
}

/** A network in CIDR notation (net.ParseCIDR), or undefined. */
export function parseCIDR(text: string): CIDR | undefined {
  const slash = text.indexOf("/");
  const family = ipFamily(text.slice(0, slash));
  const prefix = text.slice(slash + 1);
  if (slash < 0 || family === undefined || !/^\d{1,3}$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128)) return undefined;
  return { text, family };
}

/**
 * The kubelet's podCIDR as the CRI carries it: one network, or an IPv4 and an IPv6 one
 * separated by a comma (dual stack); undefined for anything else.
 */
export function parsePodCIDRs(text: string): CIDR[] | undefined {
  const cidrs = text.split(",").map(parseCIDR);
  if (cidrs.length > 2 || cidrs.some((c) => c === undefined)) return undefined;
  const valid = cidrs as CIDR[];
  return new Set(valid.map((c) => c.family)).size === valid.length ? valid : undefined;
}
