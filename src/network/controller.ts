/**
 * The pod network of a joined node: a watch of every Node (one list, then only changes), and on
 * each change (and every resync period) one pass that (1) hands this Node's pod CIDR to the
 * runtime once it is assigned or changes, (2) with host-gw, makes the kernel's bunlet routes
 * match the other Nodes' pod CIDRs, and (3) keeps the masquerade chains. Nothing is removed at
 * shutdown: routes and rules stay with the pods, which keep running.
 */
import type { Node } from "kubernetes-types/core/v1";
import { ApiError, createReflector, ObjectStore, type ApiClient, type KubeObject } from "../apiclient/index.ts";
import { delay, ipFamily, Mailbox, type Clock, type Logger } from "../lib/index.ts";
import type { HostNetwork } from "./host.ts";
import { choosePodCIDR, nodePodCIDRs } from "./pod-cidr.ts";
import { desiredRoutes, planRoutes, type NodeRoute } from "./routes.ts";
import { networkAddress, overVxlan, planPeers, vtepMac, type VxlanPeer } from "./vxlan.ts";

/** How long to wait for the controller-manager to assign a range before the fallback (k3s waits forever). */
const DEFAULT_WAIT_FOR_POD_CIDR_MS = 30_000;
const NODES = "/api/v1/nodes";
/** Routes and rules are checked again this often, so a route someone deleted comes back. */
const DEFAULT_RESYNC_MS = 30_000;

/** Gives the runtime its pod range: the embedded containerd's conflist, or CRI UpdateRuntimeConfig. */
export type PodCIDRApplier = (cidrs: string, origin: "node" | "fallback") => Promise<void>;

export interface PodNetworkDeps {
  client: Pick<ApiClient, "list" | "watch">;
  apply: PodCIDRApplier;
  /** Given with host-gw routing (the embedded runtime's bridge on the Node's range). */
  host?: HostNetwork;
  clock: Clock;
  random: () => number;
  log: Logger;
}

export interface PodNetworkOptions {
  nodeName: string;
  /** --pod-cidr; "" takes the Node's. */
  flagPodCIDR: string;
  /** The range the runtime gets when the Node has none after waitForPodCIDRMs; none = keep waiting. */
  fallbackPodCIDR?: string;
  /** The Node's pod CIDR the runtime already has (the last run's conflist), so it is not handed again. */
  appliedPodCIDR?: string;
  waitForPodCIDRMs?: number;
  resyncMs?: number;
}

export interface PodNetwork {
  /** Runs until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** The range the runtime was given last ("" = none yet). */
  podCIDR(): string;
}

type Wake = "nodes" | "resync" | "fallback";

export function createPodNetwork(deps: PodNetworkDeps, opts: PodNetworkOptions): PodNetwork {
  const { clock, log } = deps;
  const wake = new Mailbox<Wake>();
  const onChange = () => void wake.put("nodes");
  const reflect = (store: ObjectStore<Node & KubeObject>, fieldSelector?: string) =>
    createReflector<Node & KubeObject>({ client: deps.client, path: NODES, fieldSelector, store, clock, random: deps.random, log, name: "*v1.Node" });
  // This Node, for its pod CIDR: a node's credentials may always watch their own Node.
  const own = new ObjectStore<Node & KubeObject>({ onChange });
  const ownReflector = reflect(own, `metadata.name=${opts.nodeName}`);
  // With host-gw every Node, since routes lead to all of them. Since Kubernetes 1.34 the Node
  // authorizer gives a node its own Node only (AuthorizeNodeWithSelectors): this list needs RBAC.
  const all = new ObjectStore<Node & KubeObject>({ onChange });
  const allReflector = deps.host ? reflect(all) : undefined;
  let applied = opts.appliedPodCIDR ?? "";
  // Routes and rules belong to a range from the Node; a fallback range is this host's alone.
  let appliedFrom: "node" | "fallback" | undefined = applied === "" ? undefined : "node";
  let fallbackDue = false;
  let lastProblems = "";
  let routesSynced = false;

  const syncPodCIDR = async (self: Node | undefined) => {
    const choice = choosePodCIDR(opts.flagPodCIDR, self);
    let cidrs: string | undefined;
    let origin: "node" | "fallback" = "node";
    if (choice.source === "flag" || choice.source === "node") cidrs = choice.cidrs;
    else if (choice.source === "invalid") log.error("Cannot use the Node's pod CIDR; pods keep the range they have", { reason: choice.reason });
    else if (fallbackDue && applied === "" && opts.fallbackPodCIDR) {
      cidrs = opts.fallbackPodCIDR;
      origin = "fallback";
      log.warn("The Node has no spec.podCIDR (is kube-controller-manager run with --allocate-node-cidrs?); pods get the fallback range, and no routes lead to them from other nodes", {
        waitedSeconds: (opts.waitForPodCIDRMs ?? DEFAULT_WAIT_FOR_POD_CIDR_MS) / 1000,
        podCIDR: cidrs,
      });
    }
    if (cidrs === undefined || cidrs === applied) return;
    try {
      await deps.apply(cidrs, origin);
    } catch (err) {
      log.error("Error updating pod CIDR; retrying at the next Node change or resync", { err: `failed to update pod CIDR: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    log.info("Updating Pod CIDR", { originalPodCIDR: applied, newPodCIDR: cidrs });
    applied = cidrs;
    appliedFrom = origin;
  };

  const syncRoutes = async (host: HostNetwork, nodes: Node[]) => {
    const local = await host.localAddresses();
    const wanted = desiredRoutes(nodes, opts.nodeName, local);
    const { routes, peers } = await chooseBackends(host, wanted.routes, nodes.find((n) => n.metadata?.name === opts.nodeName));
    const skipped = wanted.skipped;
    const problems = skipped.map((s) => `${s.node}: ${s.reason}`).join("; ");
    if (problems !== lastProblems && problems !== "") log.warn("Some nodes get no route to their pods", { nodes: problems });
    lastProblems = problems;
    const peerPlan = planPeers(peers, await host.listPeers());
    // Neighbour and FDB entries first: a VXLAN route is usable the moment it is added.
    for (const peer of peerPlan.set) await host.setPeer(peer);
    const plan = planRoutes(routes, await host.listRoutes());
    for (const route of [...plan.add, ...plan.replace]) {
      try {
        await host.replaceRoute(route);
        log.info("Route to a node's pods", { node: route.node, podCIDR: route.dst, via: route.via });
      } catch (err) {
        // The kernel refuses a gateway that is not on a connected network (an IPv6 peer across a router).
        log.error("Cannot route to a node's pods (host-gw needs the node's InternalIP on a directly connected network); retrying at the next resync", {
          node: route.node,
          podCIDR: route.dst,
          via: route.via,
          err,
        });
      }
    }
    for (const route of plan.delete) {
      try {
        await host.deleteRoute(route);
        log.info("Removed the route to a node that is gone", { podCIDR: route.dst, via: route.via });
      } catch (err) {
        log.error("Cannot remove the route to a node that is gone; retrying at the next resync", { podCIDR: route.dst, via: route.via, err });
      }
    }
    for (const peer of peerPlan.remove) {
      try {
        await host.removePeer(peer);
      } catch (err) {
        log.error("Cannot remove a VXLAN peer that is gone; retrying at the next resync", { peer: peer.underlay, err });
      }
    }
    const ownRanges = applied === "" ? [] : applied.split(",");
    if (ownRanges.length > 0) await host.syncRules({ local: ownRanges, cluster: nodes.flatMap((n) => nodePodCIDRs(n)) });
    if (!routesSynced) log.info("Routes to the other nodes' pods are in place", { podCIDR: applied, routes: routes.length });
    routesSynced = true;
  };

  /**
   * host-gw where the peer's InternalIP is directly reachable; VXLAN (IPv4) where it is not, with
   * the device made on first need. IPv6 routes are host-gw only.
   */
  const chooseBackends = async (host: HostNetwork, candidates: NodeRoute[], self: Node | undefined) => {
    const routes: NodeRoute[] = [];
    const peers: VxlanPeer[] = [];
    const selfIP = self?.status?.addresses?.find((a) => a.type === "InternalIP" && ipFamily(a.address) === 4)?.address;
    const selfCIDR = nodePodCIDRs(self).find((c) => ipFamily(c.split("/")[0]!) === 4);
    for (const route of candidates) {
      if (ipFamily(route.via) !== 4 || (await host.isDirect(route.via).catch(() => true))) {
        routes.push(route);
        continue;
      }
      if (!selfIP || !selfCIDR) {
        routes.push(route); // without its own VTEP this node cannot use VXLAN; host-gw's failure is logged
        continue;
      }
      const { route: tunneled, peer } = overVxlan(route);
      routes.push(tunneled);
      peers.push(peer);
    }
    if (peers.length > 0) await host.ensureVxlan(selfIP!, vtepMac(selfIP!), networkAddress(selfCIDR!));
    return { routes, peers };
  };

  const sync = async () => {
    const self = own.list()[0];
    await syncPodCIDR(self);
    // Before the first list, every route would look stale: none is touched until the Nodes are known.
    if (deps.host && allReflector?.hasSynced() && appliedFrom === "node") {
      const others = all.list().filter((n) => n.metadata?.name !== opts.nodeName);
      await syncRoutes(deps.host, self ? [self, ...others] : others);
    }
  };

  /** Says once, in words an operator can act on, that the Nodes cannot be listed (the reflector keeps retrying). */
  const checkListAccess = async (signal: AbortSignal) => {
    try {
      await deps.client.list(NODES, { limit: 1, signal });
    } catch (err) {
      if (err instanceof ApiError && err.code === 403) {
        log.error("Cannot list Nodes, so no routes lead to other nodes' pods: grant list and watch on nodes to the group system:nodes (see docs/network.md); retrying", { err });
      }
    }
  };

  const run = async (signal: AbortSignal) => {
    if (allReflector) await checkListAccess(signal);
    const watching = Promise.all([ownReflector.run(signal), allReflector?.run(signal)]);
    const ticking = (async () => {
      while (await delay(clock, opts.resyncMs ?? DEFAULT_RESYNC_MS, signal)) wake.put("resync");
    })();
    const waiting = (async () => {
      if (await delay(clock, opts.waitForPodCIDRMs ?? DEFAULT_WAIT_FOR_POD_CIDR_MS, signal)) {
        fallbackDue = true;
        wake.put("fallback");
      }
    })();
    while ((await wake.take(signal)) !== undefined) {
      try {
        await sync();
      } catch (err) {
        log.error("Pod network sync failed; retrying at the next Node change or resync", { err });
      }
    }
    await Promise.all([watching, ticking, waiting]);
  };

  return { run, podCIDR: () => applied };
}
