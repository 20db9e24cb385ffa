/**
 * The pod's required node affinity (component-helpers' GetRequiredNodeAffinity(pod).Match(node)):
 * every nodeSelector label, and one of the required nodeSelectorTerms, each term matching when
 * all its matchExpressions (labels) and matchFields (metadata.name) do. An empty term list or a
 * term without requirements matches nothing, as in the API.
 */
import type { NodeSelectorRequirement, NodeSelectorTerm, Pod } from "../api/index.ts";

export interface NodeLabels {
  name: string;
  labels: Record<string, string>;
}

function matchRequirement(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      if (value === undefined || values.length !== 1) return false;
      const [have, want] = [Number.parseInt(value, 10), Number.parseInt(values[0]!, 10)];
      if (!/^-?\d+$/.test(value) || !/^-?\d+$/.test(values[0]!)) return false;
      return r.operator === "Gt" ? have > want : have < want;
    }
    default:
      return false;
  }
}

function matchTerm(term: NodeSelectorTerm, node: NodeLabels): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  return (
    exprs.every((r) => matchRequirement(r, node.labels[r.key])) &&
    fields.every((r) => r.key === "metadata.name" && matchRequirement(r, node.name))
  );
}

export function matchesRequiredNodeAffinity(pod: Pod, node: NodeLabels): boolean {
  for (const [k, v] of Object.entries(pod.spec.nodeSelector ?? {})) if (node.labels[k] !== v) return false;
  const required = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return required.nodeSelectorTerms.some((t) => matchTerm(t, node));
}
