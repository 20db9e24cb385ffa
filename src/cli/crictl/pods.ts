/** `crictl pods`: the pod sandboxes, newest first, as crictl lists them. */
import { PodSandboxState, type PodSandbox } from "../../cri/index.ts";
import { UsageError } from "./args.ts";
import { labelSelector, goTimeString, mapBlock, matches, newestFirst, outputFormat, printStructured, type Command, type CrictlContext } from "./command.ts";
import type { Parsed } from "./args.ts";
import { ago, protoJson, table, truncatedId } from "./format.ts";

function podState(state: PodSandboxState): string {
  return state === PodSandboxState.SANDBOX_READY ? "Ready" : "NotReady";
}

const runtimeHandler = (p: PodSandbox) => p.runtimeHandler || "(default)";

export const podsCommand: Command = {
  name: "pods",
  usage: "List pods",
  argsUsage: "",
  flags: [
    { name: "id", kind: "string", usage: "filter by pod id" },
    { name: "name", kind: "string", usage: "Filter by pod name regular expression pattern" },
    { name: "namespace", kind: "string", usage: "Filter by pod namespace regular expression pattern" },
    { name: "state", alias: "s", kind: "string", usage: "Filter by pod state" },
    { name: "label", kind: "strings", usage: "Filter by key=value label" },
    { name: "verbose", alias: "v", kind: "bool", usage: "Show verbose info for pods" },
    { name: "quiet", alias: "q", kind: "bool", usage: "List only pod IDs" },
    { name: "output", alias: "o", kind: "string", usage: "Output format, One of: json|yaml|table" },
    { name: "latest", alias: "l", kind: "bool", usage: "Show the most recently created pod" },
    { name: "last", alias: "n", kind: "int", usage: "Show last n recently created pods. Set 0 for unlimited" },
    { name: "no-trunc", kind: "bool", usage: "Show output without truncating the ID" },
  ],
  async run(ctx, parsed) {
    const format = outputFormat(parsed, ["json", "yaml", "table"]);
    const pods = await listPods(ctx, parsed);
    if (format !== "table") {
      printStructured(ctx, format, protoJson("ListPodSandboxResponse", { items: pods }));
      return 0;
    }
    if (parsed.bools.has("quiet")) {
      for (const p of pods) ctx.out(`${p.id}\n`);
      return 0;
    }
    if (parsed.bools.has("verbose")) {
      for (const p of pods) {
        let block = `ID: ${p.id}\n`;
        const m = p.metadata;
        if (m) {
          if (m.name) block += `Name: ${m.name}\n`;
          if (m.uid) block += `UID: ${m.uid}\n`;
          if (m.namespace) block += `Namespace: ${m.namespace}\n`;
          if (m.attempt) block += `Attempt: ${m.attempt}\n`;
        }
        block += `Status: ${podState(p.state)}\nCreated: ${goTimeString(p.createdAt)}\n`;
        block += mapBlock("Labels", p.labels) + mapBlock("Annotations", p.annotations);
        block += `Runtime: ${runtimeHandler(p)}\n\n`;
        ctx.out(block);
      }
      return 0;
    }
    const noTrunc = parsed.bools.has("no-trunc");
    const now = ctx.now();
    const rows = [["POD ID", "CREATED", "STATE", "NAME", "NAMESPACE", "ATTEMPT", "RUNTIME"]];
    for (const p of pods) {
      rows.push([
        noTrunc ? p.id : truncatedId(p.id),
        ago(now, p.createdAt),
        podState(p.state),
        p.metadata?.name ?? "",
        p.metadata?.namespace ?? "",
        String(p.metadata?.attempt ?? 0),
        runtimeHandler(p),
      ]);
    }
    ctx.out(table(rows));
    return 0;
  },
};

/** ListPodSandbox with crictl's filters: id, state, labels, name and namespace patterns, newest first. */
export async function listPods(ctx: CrictlContext, parsed: Parsed): Promise<PodSandbox[]> {
  const state = parsed.strings.get("state");
  let stateFilter: PodSandboxState | undefined;
  if (state !== undefined && state !== "") {
    if (state.toLowerCase() === "ready") stateFilter = PodSandboxState.SANDBOX_READY;
    else if (state.toLowerCase() === "notready") stateFilter = PodSandboxState.SANDBOX_NOTREADY;
    else throw new UsageError("--state should be ready or notready");
  }
  const { items } = await ctx.cri.runtime.listPodSandbox(
    {
      filter: {
        id: parsed.strings.get("id") ?? "",
        state: stateFilter === undefined ? undefined : { state: stateFilter },
        labelSelector: labelSelector(parsed) ?? {},
      },
    },
    { signal: ctx.signal },
  );
  return newestFirst(
    items.filter((p) => matches(parsed.strings.get("name"), p.metadata?.name ?? "") && matches(parsed.strings.get("namespace"), p.metadata?.namespace ?? "")),
    parsed,
  );
}
