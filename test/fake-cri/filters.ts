/**
 * ListPodSandbox / ListContainers filters as containerd applies them: the id (and pod_sandbox_id)
 * may be a unique prefix, resolved to the full id first; an id that resolves to nothing matches
 * nothing; state and every label_selector pair must match exactly.
 */
import type { ContainerFilter, PodSandboxFilter } from "../../src/cri/index.ts";
import type { FakeContainer, FakeSandbox } from "./types.ts";

function expand(ids: Iterable<string>, idOrPrefix: string): string {
  if (idOrPrefix === "") return "";
  const list = [...ids];
  if (list.includes(idOrPrefix)) return idOrPrefix;
  const matches = list.filter((id) => id.startsWith(idOrPrefix));
  return matches.length === 1 ? matches[0] : idOrPrefix;
}

function labelsMatch(labels: Record<string, string>, selector: Record<string, string> | undefined): boolean {
  for (const [k, v] of Object.entries(selector ?? {})) if (labels[k] !== v) return false;
  return true;
}

export function filterSandboxes(all: FakeSandbox[], filter: PodSandboxFilter | undefined): FakeSandbox[] {
  if (!filter) return all;
  const id = expand(
    all.map((s) => s.id),
    filter.id,
  );
  return all.filter(
    (s) =>
      (id === "" || s.id === id) &&
      (filter.state === undefined || s.state === filter.state.state) &&
      labelsMatch(s.labels, filter.labelSelector),
  );
}

export function filterContainers(all: FakeContainer[], sandboxIds: string[], filter: ContainerFilter | undefined): FakeContainer[] {
  if (!filter) return all;
  const id = expand(
    all.map((c) => c.id),
    filter.id,
  );
  const sandboxId = expand(sandboxIds, filter.podSandboxId);
  return all.filter(
    (c) =>
      (id === "" || c.id === id) &&
      (sandboxId === "" || c.podSandboxId === sandboxId) &&
      (filter.state === undefined || c.state === filter.state.state) &&
      labelsMatch(c.labels, filter.labelSelector),
  );
}
