import { parsePodCIDRs } from "../lib/index.ts";
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
        ipMasq: true,
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
