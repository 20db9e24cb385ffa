/**
 * Node registration (kubelet_node_status.go registerWithAPIServer): build the initial Node
 * (default labels, --node-labels, --register-with-taints, the first status) and create it,
 * retrying 100 ms doubling to 7 s until it works. A Node of the same name is reconciled, not
 * recreated: its default labels are brought back to what this node says (updateDefaultLabels).
 */
import type { NodeStartupLatencyTracker } from "./startup-latency.ts";
import type { Node, Taint } from "kubernetes-types/core/v1";
import { delay, type Clock, type Logger } from "../lib/index.ts";
import { isAlreadyExists, resourcePath, type ApiClient } from "../apiclient/index.ts";
import { nodeLabels } from "./labels.ts";
import { setNodeStatus, type NodeStatusInputs } from "./setters.ts";

const REGISTER_BACKOFF_INITIAL_MS = 100;
const REGISTER_BACKOFF_MAX_MS = 7000;

/** The labels updateDefaultLabels reconciles on an existing Node. */
const DEFAULT_LABELS = [
  "kubernetes.io/hostname",
  "topology.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "failure-domain.beta.kubernetes.io/zone",
  "failure-domain.beta.kubernetes.io/region",
  "node.kubernetes.io/instance-type",
  "beta.kubernetes.io/instance-type",
  "kubernetes.io/os",
  "kubernetes.io/arch",
];

export interface RegistrationOptions {
  nodeName: string;
  hostname: string;
  /** --node-labels; they win over the defaults, as in the kubelet. */
  nodeLabels: Record<string, string>;
  /** --register-with-taints */
  registerWithTaints: Taint[];
}

export function initialNode(opts: RegistrationOptions, inputs: NodeStatusInputs): Node {
  const node: Node = {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: opts.nodeName,
      labels: nodeLabels({ hostname: opts.hostname, operatingSystem: inputs.machine.operatingSystem, architecture: inputs.machine.architecture, nodeLabels: opts.nodeLabels }),
    },
    spec: opts.registerWithTaints.length > 0 ? { taints: opts.registerWithTaints.map((t) => ({ ...t })) } : {},
  };
  return setNodeStatus(node, inputs);
}

/** updateDefaultLabels: the label changes an existing Node needs, as a merge patch of labels (null removes). */
export function defaultLabelsPatch(initial: Node, existing: Node): Record<string, string | null> | undefined {
  const want = initial.metadata?.labels ?? {};
  const have = existing.metadata?.labels ?? {};
  const patch: Record<string, string | null> = {};
  for (const label of DEFAULT_LABELS) {
    if (!(label in want)) continue;
    const value = want[label]!;
    if (have[label] !== value) patch[label] = value === "" ? null : value;
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}

export interface RegisterDeps {
  client: Pick<ApiClient, "create" | "get" | "patch">;
  clock: Clock;
  log: Logger;
  startup?: Pick<NodeStartupLatencyTracker, "recordAttemptRegisterNode" | "recordRegisteredNewNode">;
}

/** One attempt (tryRegisterWithAPIServer); true when the Node exists and is reconciled. */
async function tryRegisterWithAPIServer(deps: RegisterDeps, node: Node, signal: AbortSignal): Promise<boolean> {
  const name = node.metadata!.name!;
  const path = resourcePath({ apiVersion: "v1", resource: "nodes", name });
  try {
    await deps.client.create(resourcePath({ apiVersion: "v1", resource: "nodes" }), node, { signal });
    deps.startup?.recordRegisteredNewNode();
    return true;
  } catch (err) {
    if (signal.aborted) throw err;
    if (!isAlreadyExists(err)) {
      deps.log.error("Unable to register node with API server; retrying", { node: name, err });
      return false;
    }
  }
  try {
    const existing = await deps.client.get<Node>(path, { signal });
    deps.log.info("Node was previously registered; reconciling it", { node: name, uid: existing.metadata?.uid });
    const labels = defaultLabelsPatch(node, existing);
    if (labels) await deps.client.patch(path, { metadata: { labels } }, "strategic-merge", { signal });
    return true;
  } catch (err) {
    if (signal.aborted) throw err;
    deps.log.error("Unable to reconcile the existing Node with the API server; retrying", { node: name, err });
    return false;
  }
}

/** registerWithAPIServer: retries forever (100 ms doubling to 7 s) until registered or aborted. */
export async function registerWithAPIServer(deps: RegisterDeps, makeNode: () => Promise<Node>, signal: AbortSignal): Promise<boolean> {
  let stepMs = REGISTER_BACKOFF_INITIAL_MS;
  deps.startup?.recordAttemptRegisterNode();
  for (;;) {
    if (!(await delay(deps.clock, stepMs, signal))) return false;
    stepMs = Math.min(stepMs * 2, REGISTER_BACKOFF_MAX_MS);
    let node: Node;
    try {
      node = await makeNode();
    } catch (err) {
      if (signal.aborted) return false;
      deps.log.error("Unable to construct the Node object; retrying", { err, retryInMs: stepMs });
      continue;
    }
    deps.log.info("Attempting to register node", { node: node.metadata?.name });
    try {
      if (await tryRegisterWithAPIServer(deps, node, signal)) {
        deps.log.info("Successfully registered node", { node: node.metadata?.name });
        return true;
      }
    } catch (err) {
      if (signal.aborted) return false;
      throw err;
    }
  }
}
