/**
 * `crictl stats`: two ListContainerStats samples `--seconds` apart; CPU % is the core time used
 * between them over the time between them, as crictl computes it. Containers that use neither CPU
 * nor memory (not running) are left out unless -a, and so are containers new in the second sample.
 */
import type { ContainerStats } from "../../cri/index.ts";
import { delay, realClock } from "../../lib/index.ts";
import { UsageError } from "./args.ts";
import { labelSelector, outputFormat, printStructured, type Command, type CrictlContext } from "./command.ts";
import { humanSize, protoJson, table, truncatedId } from "./format.ts";
import type { Parsed } from "./args.ts";

async function sample(ctx: CrictlContext, parsed: Parsed, id: string): Promise<ContainerStats[]> {
  const { stats } = await ctx.cri.runtime.listContainerStats(
    { filter: { id, podSandboxId: parsed.strings.get("pod") ?? "", labelSelector: labelSelector(parsed) ?? {} } },
    { signal: ctx.signal },
  );
  const key = (s: ContainerStats) => s.attributes?.id ?? "";
  return [...stats].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** One table of the second sample against the first. */
function statsTable(before: readonly ContainerStats[], after: readonly ContainerStats[], all: boolean): string {
  const old = new Map(before.map((s) => [s.attributes?.id ?? "", s]));
  const rows = [["CONTAINER", "NAME", "CPU %", "MEM", "DISK", "INODES", "SWAP"]];
  for (const s of after) {
    const id = s.attributes?.id ?? "";
    const cpu = s.cpu?.usageCoreNanoSeconds?.value ?? 0n;
    const mem = s.memory?.workingSetBytes?.value ?? 0n;
    if (!all && cpu === 0n && mem === 0n) continue;
    const prev = old.get(id);
    if (!prev) continue;
    let cpuPercent = 0;
    if (cpu !== 0n) {
      const duration = (s.cpu?.timestamp ?? 0n) - (prev.cpu?.timestamp ?? 0n);
      if (duration === 0n) throw new Error("cpu stat is not updated during sample");
      cpuPercent = (Number(cpu - (prev.cpu?.usageCoreNanoSeconds?.value ?? 0n)) / Number(duration)) * 100;
    }
    rows.push([
      truncatedId(id),
      s.attributes?.metadata?.name ?? "",
      cpuPercent.toFixed(2),
      humanSize(Number(mem)),
      humanSize(Number(s.writableLayer?.usedBytes?.value ?? 0n)),
      String(s.writableLayer?.inodesUsed?.value ?? 0n),
      humanSize(Number(s.swap?.swapUsageBytes?.value ?? 0n)),
    ]);
  }
  return table(rows);
}

export const statsCommand: Command = {
  name: "stats",
  usage: "List container(s) resource usage statistics",
  argsUsage: "[ID]",
  flags: [
    { name: "all", alias: "a", kind: "bool", usage: "Show all containers (default shows just running)" },
    { name: "id", kind: "string", usage: "Filter by container id" },
    { name: "pod", alias: "p", kind: "string", usage: "Filter by pod id" },
    { name: "label", kind: "strings", usage: "Filter by key=value label" },
    { name: "output", alias: "o", kind: "string", usage: "Output format, One of: json|yaml|table" },
    { name: "seconds", alias: "s", kind: "int", usage: "Sample duration for CPU usage in seconds (default: 1)" },
    { name: "watch", alias: "w", kind: "bool", usage: "Watch pod resources" },
  ],
  async run(ctx, parsed) {
    if (parsed.args.length > 1) throw new UsageError("stats takes at most one ID");
    const format = outputFormat(parsed, ["json", "yaml", "table"]);
    const id = parsed.strings.get("id") || parsed.args[0] || "";
    const seconds = parsed.ints.get("seconds") ?? 1;
    do {
      const first = await sample(ctx, parsed, id);
      if (format !== "table") {
        printStructured(ctx, format, protoJson("ListContainerStatsResponse", { stats: first }));
        return 0;
      }
      if (!(await delay(realClock, seconds * 1000, ctx.signal))) return 0;
      const second = await sample(ctx, parsed, id);
      // crictl clears the screen before each table; only worth it when the tables follow each other.
      ctx.out((parsed.bools.has("watch") ? "\u001b[2J\u001b[H" : "") + statsTable(first, second, parsed.bools.has("all")));
    } while (parsed.bools.has("watch") && !ctx.signal.aborted);
    return 0;
  },
};
