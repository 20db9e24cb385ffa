/**
 * The host side of the pod network, over iproute2 and iptables: bunlet's routes (marked with
 * their own protocol number, so they are told apart from every other route and found again after
 * a restart), the host's addresses, and the masquerade/forward chains.
 */
import { mustRun, type CommandRunner } from "./exec.ts";
import { JUMPS, renderRules, type MasqueradeInput } from "./masquerade.ts";
import type { PodRoute } from "./routes.ts";
import { VXLAN_DEVICE, VXLAN_ID, VXLAN_PORT, type VxlanPeer } from "./vxlan.ts";

/** The rtnetlink protocol of bunlet's routes (`ip route show proto 77`); unused by iproute2's names. */
export const ROUTE_PROTOCOL = 77;

/** The vxlan device's side of the host: the device itself and its peers' neighbour and FDB entries. */
export interface VxlanHost {
  /** True when `ip` is reached without a gateway (host-gw can route via it). */
  isDirect(ip: string): Promise<boolean>;
  /** Creates the device if missing (VTEP on `localIP`) and gives it its MAC and address. */
  ensureVxlan(localIP: string, mac: string, address: string): Promise<void>;
  /** The peers the device knows (neighbour entries joined with FDB entries by MAC); none without the device. */
  listPeers(): Promise<VxlanPeer[]>;
  setPeer(peer: VxlanPeer): Promise<void>;
  removePeer(peer: VxlanPeer): Promise<void>;
}

export interface HostNetwork extends VxlanHost {
  /** bunlet's routes in the main table, IPv4 and IPv6. */
  listRoutes(): Promise<PodRoute[]>;
  replaceRoute(route: PodRoute): Promise<void>;
  deleteRoute(route: PodRoute): Promise<void>;
  /** Every address of the host's interfaces. */
  localAddresses(): Promise<Set<string>>;
  /** Replaces bunlet's iptables chains (each family with a local range) and makes sure they are jumped to. */
  syncRules(input: MasqueradeInput): Promise<void>;
}

interface IpRoute {
  dst?: string;
  gateway?: string;
  dev?: string;
}

interface IpNeigh {
  dst?: string;
  lladdr?: string;
}

interface Fdb {
  mac?: string;
  dst?: string;
}

interface IpAddr {
  addr_info?: { local?: string }[];
}

export function createHostNetwork(run: CommandRunner): HostNetwork {
  const proto = String(ROUTE_PROTOCOL);
  const parse = <T>(argv: string[], out: string): T[] => {
    try {
      return JSON.parse(out || "[]") as T[];
    } catch {
      throw new Error(`${argv.join(" ")} printed no JSON: ${out.slice(0, 200)}`);
    }
  };
  const routesOf = async (family: "-4" | "-6") => {
    const argv = ["ip", "-j", family, "route", "show", "table", "main", "proto", proto];
    return parse<IpRoute>(argv, await mustRun(run, argv));
  };
  return {
    async listRoutes() {
      const all = [...(await routesOf("-4")), ...(await routesOf("-6"))];
      return all.filter((r) => r.dst && r.gateway).map((r) => ({ dst: r.dst!, via: r.gateway!, ...(r.dev === VXLAN_DEVICE ? { dev: r.dev } : {}) }));
    },
    async replaceRoute(route) {
      const dev = route.dev ? ["dev", route.dev, "onlink"] : [];
      await mustRun(run, ["ip", "route", "replace", route.dst, "via", route.via, ...dev, "proto", proto]);
    },
    async deleteRoute(route) {
      await mustRun(run, ["ip", "route", "del", route.dst, "via", route.via, "proto", proto]);
    },
    async localAddresses() {
      const argv = ["ip", "-j", "addr", "show"];
      const links = parse<IpAddr>(argv, await mustRun(run, argv));
      return new Set(links.flatMap((l) => (l.addr_info ?? []).map((a) => a.local ?? "")).filter((a) => a !== ""));
    },
    async isDirect(ip) {
      const argv = ["ip", "-j", "route", "get", ip];
      const [route] = parse<IpRoute>(argv, await mustRun(run, argv));
      return route !== undefined && route.gateway === undefined && route.dev !== VXLAN_DEVICE;
    },
    async ensureVxlan(localIP, mac, address) {
      const exists = (await run(["ip", "link", "show", VXLAN_DEVICE])).code === 0;
      if (!exists) {
        // nolearning: the FDB holds exactly the peers bunlet writes; no flooding to guessed VTEPs.
        await mustRun(run, ["ip", "link", "add", VXLAN_DEVICE, "type", "vxlan", "id", String(VXLAN_ID), "local", localIP, "dstport", String(VXLAN_PORT), "nolearning"]);
      }
      await mustRun(run, ["ip", "link", "set", "dev", VXLAN_DEVICE, "address", mac, "up"]);
      await mustRun(run, ["ip", "addr", "replace", `${address}/32`, "dev", VXLAN_DEVICE]);
    },
    async listPeers() {
      if ((await run(["ip", "link", "show", VXLAN_DEVICE])).code !== 0) return [];
      const neighArgv = ["ip", "-j", "neigh", "show", "dev", VXLAN_DEVICE];
      const fdbArgv = ["bridge", "-j", "fdb", "show", "dev", VXLAN_DEVICE];
      const neighbours = parse<IpNeigh>(neighArgv, await mustRun(run, neighArgv));
      const fdb = parse<Fdb>(fdbArgv, await mustRun(run, fdbArgv));
      return neighbours
        .filter((n) => n.dst && n.lladdr)
        .map((n) => ({ mac: n.lladdr!, gateway: n.dst!, underlay: fdb.find((f) => f.mac === n.lladdr)?.dst ?? "" }));
    },
    async setPeer(peer) {
      await mustRun(run, ["ip", "neigh", "replace", peer.gateway, "lladdr", peer.mac, "dev", VXLAN_DEVICE, "nud", "permanent"]);
      await mustRun(run, ["bridge", "fdb", "replace", peer.mac, "dev", VXLAN_DEVICE, "dst", peer.underlay, "self", "permanent"]);
    },
    async removePeer(peer) {
      // An empty side has nothing to remove: a half-written peer, or a neighbour a new peer took over.
      if (peer.gateway !== "") await mustRun(run, ["ip", "neigh", "del", peer.gateway, "dev", VXLAN_DEVICE]);
      if (peer.underlay !== "") await mustRun(run, ["bridge", "fdb", "del", peer.mac, "dev", VXLAN_DEVICE, "dst", peer.underlay, "self"]);
    },
    async syncRules(input) {
      for (const family of [4, 6] as const) {
        if (!input.local.some((c) => c.includes(":") === (family === 6))) continue;
        const [restore, tables] = family === 4 ? ["iptables-restore", "iptables"] : ["ip6tables-restore", "ip6tables"];
        await mustRun(run, [restore, "--noflush", "--wait"], renderRules(input, family));
        for (const [table, builtin, chain] of JUMPS) {
          const rule = [builtin, "-m", "comment", "--comment", "bunlet pod network", "-j", chain];
          const check = await run([tables, "--wait", "-t", table, "-C", ...rule]);
          if (check.code !== 0) await mustRun(run, [tables, "--wait", "-t", table, "-A", ...rule]);
        }
      }
    },
  };
}
