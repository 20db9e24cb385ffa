/**
 * `crictl inspect` and `crictl inspectp`: ContainerStatus / PodSandboxStatus (verbose unless -q)
 * as crictl prints them: by default JSON of {"info": ..., "status": ...} with Go's sorted keys and
 * RFC3339Nano times; `-o yaml`, or `-o table` for the short text form. Without IDs, the ps/pods
 * filters pick the containers or pods.
 */
import { stringify } from "yaml";
import { ContainerState, PodSandboxState, type ContainerStatus, type PodSandboxStatus } from "../../cri/index.ts";
import { UsageError, type FlagSpec } from "./args.ts";
import { ago, goJson, goZeroTime, protoJson, rfc3339Nano } from "./format.ts";
import { goTimeString, mapBlock, type Command, type CrictlContext } from "./command.ts";
import { listPods } from "./pods.ts";
import { listContainers } from "./ps.ts";

type Info = Record<string, string>;

/** Each info value is JSON (containerd's "info" is a JSON document); a value that is not stays a string. */
function parseInfo(info: Info): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(info)) {
    try {
      out[k] = JSON.parse(v);
    } catch {
      out[k] = v;
    }
  }
  return out;
}

function printStatuses(ctx: CrictlContext, format: string, statuses: { status: Record<string, unknown>; info: Info }[]): void {
  const result = statuses.map((s) => ({ ...(Object.keys(s.info).length > 0 ? { info: parseInfo(s.info) } : {}), status: s.status }));
  const value = result.length === 1 ? result[0] : result;
  ctx.out(format === "yaml" ? stringify(JSON.parse(goJson(value))) + "\n" : goJson(value) + "\n");
}

function containerJson(s: ContainerStatus): Record<string, unknown> {
  const json = protoJson("ContainerStatus", s);
  json.createdAt = rfc3339Nano(s.createdAt);
  json.startedAt = s.state !== ContainerState.CONTAINER_CREATED ? rfc3339Nano(s.startedAt) : goZeroTime;
  const finished = s.state === ContainerState.CONTAINER_EXITED || (s.state === ContainerState.CONTAINER_UNKNOWN && s.finishedAt > 0n);
  json.finishedAt = finished ? rfc3339Nano(s.finishedAt) : goZeroTime;
  return json;
}

function containerTable(s: ContainerStatus, info: Info, verbose: boolean, now: number): string {
  let out = `ID: ${s.id}\n`;
  if (s.metadata?.name) out += `Name: ${s.metadata.name}\n`;
  if (s.metadata?.attempt) out += `Attempt: ${s.metadata.attempt}\n`;
  out += `State: ${ContainerState[s.state]}\nCreated: ${ago(now, s.createdAt)}\n`;
  if (s.state !== ContainerState.CONTAINER_CREATED) out += `Started: ${ago(now, s.startedAt)}\n`;
  if (s.state === ContainerState.CONTAINER_EXITED) {
    if (s.finishedAt > 0n) out += `Finished: ${ago(now, s.finishedAt)}\n`;
    out += `Exit Code: ${s.exitCode}\n`;
  }
  out += mapBlock("Labels", s.labels) + mapBlock("Annotations", s.annotations);
  if (verbose) out += `Info: map[${Object.keys(info).sort().map((k) => `${k}:${info[k]}`).join(" ")}]\n`;
  return out;
}

function podTable(s: PodSandboxStatus, info: Info, verbose: boolean): string {
  let out = `ID: ${s.id}\n`;
  if (s.metadata) {
    if (s.metadata.name) out += `Name: ${s.metadata.name}\n`;
    if (s.metadata.uid) out += `UID: ${s.metadata.uid}\n`;
    if (s.metadata.namespace) out += `Namespace: ${s.metadata.namespace}\n`;
    out += `Attempt: ${s.metadata.attempt}\n`;
  }
  out += `Status: ${PodSandboxState[s.state]}\nCreated: ${goTimeString(s.createdAt)}\n`;
  if (s.network) {
    out += `IP Addresses: ${s.network.ip}\n`;
    for (const ip of s.network.additionalIps) out += `Additional IP: ${ip.ip}\n`;
  }
  out += mapBlock("Labels", s.labels) + mapBlock("Annotations", s.annotations);
  if (verbose) out += `Info: map[${Object.keys(info).sort().map((k) => `${k}:${info[k]}`).join(" ")}]\n`;
  return out;
}

const common: FlagSpec[] = [
  { name: "output", alias: "o", kind: "string", usage: "Output format, One of: json|yaml|table" },
  { name: "quiet", alias: "q", kind: "bool", usage: "Do not show verbose information" },
  { name: "name", kind: "string", usage: "Filter by name regular expression pattern" },
  { name: "namespace", kind: "string", usage: "Filter by pod namespace regular expression pattern" },
  { name: "state", alias: "s", kind: "string", usage: "Filter by state" },
  { name: "label", kind: "strings", usage: "Filter by key=value label" },
  { name: "latest", alias: "l", kind: "bool", usage: "Show the most recently created one" },
  { name: "last", alias: "n", kind: "int", usage: "Show last n recently created ones. Set 0 for unlimited" },
];

function formatOf(output: string | undefined): string {
  const format = output || "json";
  if (!["json", "yaml", "table"].includes(format)) throw new UsageError(`unsupported format: "${format}"`);
  return format;
}

export const inspectCommand: Command = {
  name: "inspect",
  usage: "Display the status of one or more containers",
  argsUsage: "CONTAINER-ID [CONTAINER-ID...]",
  flags: [
    ...common,
    { name: "pod", alias: "p", kind: "string", usage: "Filter by pod id" },
    { name: "image", kind: "string", usage: "Filter by container image" },
    { name: "all", alias: "a", kind: "bool", usage: "Show all containers" },
  ],
  async run(ctx, parsed) {
    const format = formatOf(parsed.strings.get("output"));
    const verbose = !parsed.bools.has("quiet");
    let ids = parsed.args;
    if (ids.length === 0) ids = (await listContainers(ctx, parsed)).map((c) => c.id);
    if (ids.length === 0) throw new UsageError("No IDs provided or nothing found per filter");
    const statuses: { status: Record<string, unknown>; info: Info }[] = [];
    for (const id of ids) {
      const res = await ctx.cri.runtime.containerStatus({ containerId: id, verbose }, { signal: ctx.signal });
      if (!res.status) throw new Error(`get container status: no status for ${id}`);
      if (format === "table") ctx.out(containerTable(res.status, res.info, verbose, ctx.now()));
      else statuses.push({ status: containerJson(res.status), info: res.info });
    }
    if (statuses.length > 0) printStatuses(ctx, format, statuses);
    return 0;
  },
};

export const inspectpCommand: Command = {
  name: "inspectp",
  usage: "Display the status of one or more pods",
  argsUsage: "POD-ID [POD-ID...]",
  flags: common,
  async run(ctx, parsed) {
    const format = formatOf(parsed.strings.get("output"));
    const verbose = !parsed.bools.has("quiet");
    let ids = parsed.args;
    if (ids.length === 0) ids = (await listPods(ctx, parsed)).map((p) => p.id);
    if (ids.length === 0) throw new UsageError("No IDs provided or nothing found per filter");
    const statuses: { status: Record<string, unknown>; info: Info }[] = [];
    for (const id of ids) {
      const res = await ctx.cri.runtime.podSandboxStatus({ podSandboxId: id, verbose }, { signal: ctx.signal });
      if (!res.status) throw new Error(`get pod sandbox status: no status for ${id}`);
      if (format === "table") ctx.out(podTable(res.status, res.info, verbose));
      else {
        const json = protoJson("PodSandboxStatus", res.status);
        json.createdAt = rfc3339Nano(res.status.createdAt);
        statuses.push({ status: json, info: res.info });
      }
    }
    if (statuses.length > 0) printStatuses(ctx, format, statuses);
    return 0;
  },
};
