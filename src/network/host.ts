/**
 * The host side of the pod network, over iproute2 and iptables: bunlet's routes (marked with
 * their own protocol number, so they are told apart from every other route and found again after
 * a restart), the host's addresses, and the masquerade/forward chains.
 */
import { mustRun, type CommandRunner } from "./exec.ts";
import { JUMPS, renderRules, type MasqueradeInput } from "./masquerade.ts";
import type { PodRoute } from "./routes.ts";

/** The rtnetlink protocol of bunlet's routes (`ip route show proto 77`); unused by iproute2's names. */
export const ROUTE_PROTOCOL = 77;

export interface HostNetwork {
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
      return all.filter((r) => r.dst && r.gateway).map((r) => ({ dst: r.dst!, via: r.gateway! }));
    },
    async replaceRoute(route) {
      await mustRun(run, ["ip", "route", "replace", route.dst, "via", route.via, "proto", proto]);
    },
    async deleteRoute(route) {
      await mustRun(run, ["ip", "route", "del", route.dst, "via", route.via, "proto", proto]);
    },
    async localAddresses() {
      const argv = ["ip", "-j", "addr", "show"];
      const links = parse<IpAddr>(argv, await mustRun(run, argv));
      return new Set(links.flatMap((l) => (l.addr_info ?? []).map((a) => a.local ?? "")).filter((a) => a !== ""));
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
