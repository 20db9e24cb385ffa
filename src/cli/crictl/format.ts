/**
 * crictl's output helpers, reproduced so `bunlet crictl` prints what crictl prints: Go's
 * text/tabwriter as crictl sets it up (minwidth 20, padding 3), docker/go-units' HumanDuration
 * and HumanSize, 13-character truncated IDs, RFC3339Nano times, and JSON as Go's encoding/json
 * writes a map (keys sorted, <, > and & escaped, two-space indent).
 */
import type { DescMessage } from "@bufbuild/protobuf";
import { loadCriDescriptors } from "../../cri/index.ts";

const truncatedIdLength = 13;

/** Go's text/tabwriter with minwidth 20, tabwidth 1, padding 3, padchar ' ', no flags. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.slice(0, -1).forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, Math.max(20, cell.length + 3))));
  }
  return rows.map((row) => row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]) : cell)).join("") + "\n").join("");
}

/** crictl's getTruncatedID: the prefix removed, then at most 13 characters. */
export function truncatedId(id: string, prefix = ""): string {
  const bare = prefix !== "" && id.startsWith(prefix) ? id.slice(prefix.length) : id;
  return bare.slice(0, truncatedIdLength);
}

/** docker/go-units HumanDuration. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < 1) return "Less than a second";
  if (seconds === 1) return "1 second";
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes === 1) return "About a minute";
  if (minutes < 60) return `${minutes} minutes`;
  const hours = Math.round(ms / 3_600_000);
  if (hours === 1) return "About an hour";
  if (hours < 48) return `${hours} hours`;
  if (hours < 24 * 7 * 2) return `${Math.trunc(hours / 24)} days`;
  if (hours < 24 * 30 * 2) return `${Math.trunc(hours / 24 / 7)} weeks`;
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24 / 30)} months`;
  return `${Math.trunc(ms / 3_600_000 / 24 / 365)} years`;
}

const decimalUnits = ["B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"];

/** docker/go-units HumanSizeWithPrecision: decimal units, `precision` significant digits. */
export function humanSize(bytes: number, precision = 4): string {
  let size = bytes;
  let unit = 0;
  while (size >= 1000 && unit < decimalUnits.length - 1) {
    size /= 1000;
    unit++;
  }
  return `${Number(size.toPrecision(precision))}${decimalUnits[unit]}`;
}

/** Go's time.Format(time.RFC3339Nano) of Unix nanoseconds, in UTC. */
export function rfc3339Nano(nanos: bigint): string {
  if (nanos === 0n) return "1970-01-01T00:00:00Z";
  const ms = Number(nanos / 1_000_000n);
  const frac = (nanos % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  const base = new Date(ms).toISOString().replace(/\.\d{3}Z$/, "");
  return `${base}${frac ? `.${frac}` : ""}Z`;
}

/** Go's zero time.Time, as RFC3339Nano prints it (a start or finish that never happened). */
export const goZeroTime = "0001-01-01T00:00:00Z";

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** encoding/json of a map[string]any, indented by two spaces. */
export function goJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

interface Descriptors {
  pb: Awaited<ReturnType<typeof loadCriDescriptors>>;
  protobuf: typeof import("@bufbuild/protobuf");
}
let descriptors: Descriptors | undefined;

/**
 * Loads the CRI messages' descriptors and @bufbuild/protobuf's JSON writer, which protoJson needs
 * (crictl only: the agent loads neither, docs/lean.md "What loading a module costs").
 */
export async function loadDescriptors(): Promise<void> {
  if (descriptors) return;
  const [pb, protobuf] = await Promise.all([loadCriDescriptors(), import("@bufbuild/protobuf")]);
  descriptors = { pb, protobuf };
}

/** The CRI messages crictl prints as JSON. */
type JsonMessage = "ContainerStatus" | "PodSandboxStatus" | "ListImagesResponse" | "ListPodSandboxResponse" | "ListContainersResponse" | "ListContainerStatsResponse";

/** protojson with EmitDefaultValues, as a plain value, of the CRI message named (made from `message` if it is an init). */
export function protoJson(name: JsonMessage, message: object): Record<string, unknown> {
  if (!descriptors) throw new Error("crictl: the CRI descriptors are not loaded (loadDescriptors)");
  const { pb, protobuf } = descriptors;
  const schema = pb[`${name}Schema`] as DescMessage;
  return protobuf.toJson(schema, protobuf.create(schema, message as never), { alwaysEmitImplicit: true }) as Record<string, unknown>;
}

/** A crictl "created" column: "5 minutes ago". */
export function ago(nowMs: number, nanos: bigint): string {
  return `${humanDuration(Math.max(0, nowMs - Number(nanos / 1_000_000n)))} ago`;
}
