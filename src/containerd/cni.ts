import { parsePodCIDRs } from "../lib/index.ts";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { containerdPaths } from "./paths.ts";

export const DEFAULT_BRIDGE_NAME = "bunlet0";
export const DEFAULT_POD_SUBNET = "10.88.0.0/16";
const CNI_NETWORK_NAME = "bunlet";

export interface CniConflistOptions {
  rootDir: string;
  /** Linux bridge the pods attach to; at most 15 characters. Default bunlet0. */
  bridgeName?: string;
  /** Pod subnet for host-local IPAM: IPv4, IPv6, or both comma-separated. Default 10.88.0.0/16. */
  podSubnet?: string;
  /**
   * The bridge plugin's ipMasq (default true): it masquerades everything a pod sends outside its
   * own node's subnet, pod-to-pod traffic to other nodes included. The cluster network turns it
   * off and masquerades only traffic that leaves the cluster's pod ranges (src/network).
   */
  ipMasq?: boolean;
  /**
   * The bridge plugin's forceAddress: a bridge left with a gateway address from another range
   * (the range moved to the Node's) gets the new one instead of failing every pod.
   */
  forceAddress?: boolean;
}

const IFNAMSIZ = 15;

/**
 * Renders the bridge + host-local + portmap conflist, IPv4, IPv6 or dual stack; IPAM leases live
 * under the instance's root dir.
 */
export function renderCniConflist(opts: CniConflistOptions): string {
  const bridge = opts.bridgeName ?? DEFAULT_BRIDGE_NAME;
  if (!/^[A-Za-z0-9_.-]+$/.test(bridge) || bridge.length > IFNAMSIZ) {
    throw new Error(`bridge name must be 1-${IFNAMSIZ} characters of [A-Za-z0-9_.-], got ${JSON.stringify(bridge)}`);
  }
  const subnet = opts.podSubnet ?? DEFAULT_POD_SUBNET;
  const cidrs = parsePodCIDRs(subnet);
  if (!cidrs) {
    throw new Error(`pod subnet must be a CIDR like 10.88.0.0/16, or an IPv4 and an IPv6 one separated by a comma, got ${JSON.stringify(subnet)}`);
  }
  const conflist = {
    cniVersion: "1.0.0",
    name: CNI_NETWORK_NAME,
    plugins: [
      {
        type: "bridge",
        bridge,
        isGateway: true,
        ipMasq: opts.ipMasq ?? true,
        ...(opts.forceAddress ? { forceAddress: true } : {}),
        hairpinMode: true,
        ipam: {
          type: "host-local",
          // One range per family: host-local gives each pod an address from each (dual stack).
          ranges: cidrs.map((c) => [{ subnet: c.text }]),
          routes: cidrs.map((c) => ({ dst: c.family === 4 ? "0.0.0.0/0" : "::/0" })),
          dataDir: containerdPaths(opts.rootDir).cniIpamDir,
        },
      },
      { type: "portmap", capabilities: { portMappings: true } },
    ],
  };
  return JSON.stringify(conflist, null, 2) + "\n";
}

/**
 * Writes the embedded containerd's conflist (atomically: containerd's CRI watches the conf dir
 * and reloads its network on every change, so a half-written file would be read). Returns false
 * when the file already held this text, so an unchanged network is not reloaded.
 */
export function writeCniConflist(opts: CniConflistOptions): boolean {
  const paths = containerdPaths(opts.rootDir);
  const text = renderCniConflist(opts);
  if (readText(paths.cniConflistFile) === text) return false;
  mkdirSync(paths.cniConfDir, { recursive: true, mode: 0o711 });
  // The temporary name does not end in .conflist, so containerd never loads it.
  writeFileSync(`${paths.cniConflistFile}.tmp`, text, { mode: 0o600 });
  renameSync(`${paths.cniConflistFile}.tmp`, paths.cniConflistFile);
  return true;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** The range and masquerade setting of the conflist a previous run wrote; undefined when there is none. */
export function renderedPodNetwork(rootDir: string): { podSubnet: string; ipMasq: boolean } | undefined {
  const text = readText(containerdPaths(rootDir).cniConflistFile);
  if (text === undefined) return undefined;
  try {
    const bridge = (JSON.parse(text) as { plugins?: { type?: string; ipMasq?: boolean; ipam?: { ranges?: { subnet?: string }[][] } }[] }).plugins?.find((p) => p.type === "bridge");
    const subnets = (bridge?.ipam?.ranges ?? []).map((r) => r[0]?.subnet ?? "");
    if (!bridge || subnets.length === 0 || subnets.includes("")) return undefined;
    return { podSubnet: subnets.join(","), ipMasq: bridge.ipMasq !== false };
  } catch {
    return undefined; // not ours, or damaged: rendered anew
  }
}
