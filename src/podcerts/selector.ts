/**
 * metav1.LabelSelectorAsSelector and labels.Selector.Matches, for choosing ClusterTrustBundles:
 * an absent selector matches nothing, an empty one everything; matchLabels are Equals
 * requirements, matchExpressions In, NotIn, Exists and DoesNotExist. A malformed selector fails
 * with the apimachinery's words (the apiserver's pod validation keeps them out in practice).
 */
import type { LabelSelector } from "../api/index.ts";

type Operator = "=" | "in" | "notin" | "exists" | "!";

interface Requirement {
  key: string;
  op: Operator;
  values: string[];
}

export type Selector = { kind: "nothing" } | { kind: "everything" } | { kind: "requirements"; requirements: Requirement[] };

const operators: Record<string, Operator> = { In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!" };

/** Go's %#v of a []string. */
function goStrings(values: string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(", ")}}`;
}

/** labels.NewRequirement's value-count rules (field errors under "values"). */
function requirement(key: string, op: Operator, values: string[]): Requirement {
  const invalid = (msg: string) => new Error(`values: Invalid value: ${goStrings(values)}: ${msg}`);
  if ((op === "in" || op === "notin") && values.length === 0) throw invalid("for 'in', 'notin' operators, values set can't be empty");
  if (op === "=" && values.length !== 1) throw invalid("exact-match compatibility requires one single value");
  if ((op === "exists" || op === "!") && values.length !== 0) throw invalid("values set must be empty for exists and does not exist");
  return { key, op, values };
}

/** LabelSelectorAsSelector; throws on an unknown operator or a wrong number of values. */
export function labelSelectorAsSelector(ls: LabelSelector | undefined | null): Selector {
  if (!ls) return { kind: "nothing" };
  const labels = Object.entries(ls.matchLabels ?? {});
  const expressions = ls.matchExpressions ?? [];
  if (labels.length + expressions.length === 0) return { kind: "everything" };
  const requirements = labels.map(([k, v]) => requirement(k, "=", [v]));
  for (const e of expressions) {
    const op = operators[e.operator];
    if (!op) throw new Error(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    requirements.push(requirement(e.key, op, [...(e.values ?? [])]));
  }
  return { kind: "requirements", requirements };
}

function matchesRequirement(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.op) {
    case "=":
    case "in":
      return has && r.values.includes(labels[r.key]);
    case "notin":
      return !has || !r.values.includes(labels[r.key]);
    case "exists":
      return has;
    case "!":
      return !has;
  }
}

export function selectorMatches(selector: Selector, labels: Record<string, string> | undefined): boolean {
  if (selector.kind === "nothing") return false;
  if (selector.kind === "everything") return true;
  return selector.requirements.every((r) => matchesRequirement(r, labels ?? {}));
}

/** labels.Selector.String(): requirements sorted by key, `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`. */
export function selectorString(selector: Selector): string {
  if (selector.kind !== "requirements") return "";
  const parts = [...selector.requirements]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => {
      const values = [...r.values].sort();
      if (r.op === "=") return `${r.key}=${values[0]}`;
      if (r.op === "exists") return r.key;
      if (r.op === "!") return `!${r.key}`;
      return `${r.key} ${r.op} (${values.join(",")})`;
    });
  return parts.join(",");
}
