/**
 * The node status loop (kubelet syncNodeStatus / updateNodeStatus / tryUpdateNodeStatus): every
 * nodeStatusUpdateFrequency (+ up to 4 % jitter) it registers the node if that has not happened
 * yet, reads the Node (first try from the node informer's copy, else the apiserver's cache), runs
 * the setters, and patches
 * nodes/<name>/status when the status changed or nodeStatusReportFrequency has passed since the
 * last report; up to 5 tries per round. The apiserver being away only costs log lines: the next
 * round tries again, and nothing here touches pods.
 */
import type { Node, NodeStatus } from "kubernetes-types/core/v1";
import { cloneJson, delay, jitter, type Clock, type Logger } from "../lib/index.ts";
import { resourcePath, type ApiClient } from "../apiclient/index.ts";
import { initialNode, registerWithAPIServer, type RegistrationOptions } from "./register.ts";
import type { NodeStartupLatencyTracker } from "./startup-latency.ts";
import { nodeStatusHasChanged, setNodeStatus, type NodeStatusInputs } from "./setters.ts";

/** nodeStatusUpdateRetry */
const NODE_STATUS_UPDATE_RETRY = 5;
const JITTER_FACTOR = 0.04;

/**
 * A strategic-merge patch of nodes/status from original to next, as nodeutil.PatchNodeStatus
 * produces: conditions merge by type (other owners' conditions stay), addresses are replaced
 * whole (their merge key is wrong upstream), resources that disappeared are removed.
 */
export function statusPatch(original: NodeStatus | undefined, next: NodeStatus): { status: Record<string, unknown> } {
  const withRemovals = (before: Record<string, string> | undefined, after: Record<string, string> | undefined) => {
    const out: Record<string, string | null> = { ...(after ?? {}) };
    for (const k of Object.keys(before ?? {})) if (!(k in out)) out[k] = null;
    return out;
  };
  const status: Record<string, unknown> = {
    capacity: withRemovals(original?.capacity, next.capacity),
    allocatable: withRemovals(original?.allocatable, next.allocatable),
    conditions: next.conditions ?? [],
    addresses: [{ $patch: "replace" }, ...(next.addresses ?? [])],
    daemonEndpoints: next.daemonEndpoints,
    nodeInfo: next.nodeInfo,
  };
  if (next.images) status.images = next.images;
  return { status };
}

export interface NodeStatusLoopDeps {
  /** Registration (the kubelet's rate-limited kubeClient). */
  client: Pick<ApiClient, "create" | "get" | "patch">;
  /** Status reads and patches (the kubelet's heartbeat client: no rate limit, short timeout). */
  heartbeatClient: Pick<ApiClient, "get" | "patch">;
  /** What the setters need, gathered now. */
  statusInputs(): Promise<NodeStatusInputs>;
  /**
   * The Node as this node's own watch last delivered it (the kubelet's node informer), if it has
   * one yet. A first try reads it instead of a GET, as the kubelet's first try reads its node
   * lister (kubelet_node_status.go tryUpdateNodeStatus); a retry reads the apiserver.
   */
  cachedNode?(): Node | undefined;
  clock: Clock;
  random: () => number;
  log: Logger;
  /** The node startup durations: registration and the first Ready status. */
  startup?: NodeStartupLatencyTracker;
}

export interface NodeStatusLoopOptions extends RegistrationOptions {
  registerNode: boolean;
  updateFrequencyMs: number;
  reportFrequencyMs: number;
}

export interface NodeStatusLoop {
  /** Until the signal aborts; never throws for API failures. */
  run(signal: AbortSignal): Promise<void>;
  registered(): boolean;
  /** When the status was last patched (0 = never). */
  lastReportTime(): number;
  /**
   * Reports the status now, whether it changed or not, from the apiserver's own copy of the Node
   * (the watched one may be stale after an outage); between the loop's rounds, never during one.
   * Resolves with the error, or undefined when reported (or when the node is not registered yet).
   */
  reportNow(signal: AbortSignal): Promise<unknown>;
}

export function createNodeStatusLoop(deps: NodeStatusLoopDeps, opts: NodeStatusLoopOptions): NodeStatusLoop {
  const { clock, log } = deps;
  const path = resourcePath({ apiVersion: "v1", resource: "nodes", name: opts.nodeName });
  let registered = false;
  let lastReport = 0;
  let failing = false;

  const tryUpdateNodeStatus = async (tryNumber: number, signal: AbortSignal, force = false) => {
    // The first try reads the watched copy, or the apiserver's cache (resourceVersion 0): cheap
    // for etcd; a retry reads etcd itself.
    const cached = tryNumber === 0 ? deps.cachedNode?.() : undefined;
    const node = cached ? cloneJson(cached) : await deps.heartbeatClient.get<Node>(path, { resourceVersion: tryNumber === 0 ? "0" : undefined, signal });
    const original = cloneJson(node.status);
    const inputs = await deps.statusInputs();
    setNodeStatus(node, inputs);
    const now = clock.now();
    if (!force && lastReport !== 0 && now < lastReport + opts.reportFrequencyMs && !nodeStatusHasChanged(original, node.status)) return;
    await deps.heartbeatClient.patch(`${path}/status`, statusPatch(original, node.status!), "strategic-merge", { signal });
    lastReport = now;
    const ready = node.status?.conditions?.find((c) => c.type === "Ready");
    if (ready?.status === "True") deps.startup?.recordNodeReady();
    log.debug("Node status updated", { node: opts.nodeName, ready: ready?.status, reason: ready?.reason }, 4);
  };

  const updateNodeStatus = async (signal: AbortSignal) => {
    for (let i = 0; i < NODE_STATUS_UPDATE_RETRY; i++) {
      try {
        await tryUpdateNodeStatus(i, signal);
        if (failing) log.info("Node status updated again after failures", { node: opts.nodeName });
        failing = false;
        return;
      } catch (err) {
        if (signal.aborted) return;
        log.error("Error updating node status, will retry", { node: opts.nodeName, try: i + 1, err });
      }
    }
    failing = true;
    log.error("Unable to update node status; trying again at the next update period, pods keep running", {
      node: opts.nodeName,
      retries: NODE_STATUS_UPDATE_RETRY,
      nextInMs: opts.updateFrequencyMs,
    });
  };

  // One round at a time: the loop's and reportNow's.
  let turn: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const next = turn.then(work);
    turn = next.catch(() => undefined);
    return next;
  };

  return {
    registered: () => registered,
    lastReportTime: () => lastReport,
    reportNow: (signal) =>
      serialized(async () => {
        if (opts.registerNode && !registered) return undefined;
        try {
          await tryUpdateNodeStatus(1, signal, true);
          log.debug("Node status reported after the Lease came back", { node: opts.nodeName }, 2);
          return undefined;
        } catch (err) {
          if (!signal.aborted) log.error("Error reporting node status after the Lease came back, will retry", { node: opts.nodeName, err });
          return err;
        }
      }),
    async run(signal) {
      while (!signal.aborted) {
        if (opts.registerNode && !registered) {
          const regDeps = { client: deps.client, clock, log, startup: deps.startup };
          registered = await registerWithAPIServer(regDeps, async () => initialNode(opts, await deps.statusInputs()), signal);
          if (!registered) return;
        }
        await serialized(() => updateNodeStatus(signal));
        if (!(await delay(clock, jitter(opts.updateFrequencyMs, JITTER_FACTOR, deps.random), signal))) return;
      }
    },
  };
}
