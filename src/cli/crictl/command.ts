/**
 * What every `bunlet crictl` subcommand gets: the CRI client, where to write, the time (for the
 * "5 minutes ago" columns) and a signal that aborts on Ctrl-C. A command returns its exit status.
 */
import { stringify } from "yaml";
import type { CriClient } from "../../cri/index.ts";
import { UsageError, type FlagSpec, type Parsed } from "./args.ts";

export interface CrictlContext {
  cri: CriClient;
  out(text: string): void;
  err(text: string): void;
  now(): number;
  signal: AbortSignal;
}

export interface Command {
  name: string;
  usage: string;
  argsUsage: string;
  flags: FlagSpec[];
  run(ctx: CrictlContext, parsed: Parsed): Promise<number>;
}

/** --label key=value, as crictl's parseLabelStringSlice. */
export function labelSelector(parsed: Parsed): Record<string, string> | undefined {
  const list = parsed.lists.get("label") ?? [];
  if (list.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const s of list) {
    const pair = s.split("=");
    if (pair.length !== 2) throw new UsageError(`incorrectly specified label: ${s}`);
    out[pair[0]] = pair[1];
  }
  return out;
}

/** -o json|yaml of a protojson value (field order kept, as protojson writes it). */
export function printStructured(ctx: CrictlContext, format: string, value: unknown): void {
  ctx.out(format === "yaml" ? stringify(value) + "\n" : JSON.stringify(value, null, 2) + "\n");
}

/** An unanchored regular expression filter; "" matches everything; a bad pattern matches nothing. */
export function matches(pattern: string | undefined, target: string): boolean {
  if (!pattern) return true;
  try {
    return new RegExp(pattern).test(target);
  } catch {
    return false;
  }
}

/** Newest first, then --latest (one) or --last N. */
export function newestFirst<T extends { createdAt: bigint }>(items: T[], parsed: Parsed): T[] {
  const sorted = [...items].sort((a, b) => (a.createdAt === b.createdAt ? 0 : a.createdAt > b.createdAt ? -1 : 1));
  let n = sorted.length;
  if (parsed.bools.has("latest")) n = 1;
  const last = parsed.ints.get("last") ?? 0;
  if (last > 0) n = last;
  return sorted.slice(0, Math.min(n, sorted.length));
}

/** Go's default %v of a time.Time from Unix nanoseconds, in UTC: "2026-11-23 22:16:42.761 +0000 UTC". */
export function goTimeString(nanos: bigint): string {
  const iso = new Date(Number(nanos / 1_000_000n)).toISOString();
  const frac = (nanos % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? `.${frac}` : ""} +0000 UTC`;
}

function sortedEntries(map: Record<string, string> | undefined): [string, string][] {
  return Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function outputFormat(parsed: Parsed, allowed: readonly string[]): string {
  const format = parsed.strings.get("output") ?? "table";
  if (!allowed.includes(format)) throw new UsageError(`unsupported output format "${format}"`);
  return format;
}

/** "Labels:" and one tab-indented "k -> v" line per entry, sorted; nothing for an empty map (Go's nil map). */
export function mapBlock(title: string, map: Record<string, string> | undefined): string {
  const entries = sortedEntries(map);
  return entries.length === 0 ? "" : `${title}:\n` + entries.map(([k, v]) => `\t${k} -> ${v}\n`).join("");
}
