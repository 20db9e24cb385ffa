/**
 * `bunlet crictl`: crictl's everyday subcommands (pods, ps, images, inspect, inspectp, logs,
 * exec, stats) over bunlet's own CRI client, with crictl's flags and output, so a node without
 * cri-tools (Debian bookworm has none) still has the usual tool, as k3s ships `k3s crictl`.
 *
 * The endpoint: --runtime-endpoint/-r, else $CONTAINER_RUNTIME_ENDPOINT, else the embedded
 * containerd's socket under --root-dir (default /var/lib/bunlet), where a bunlet without
 * --container-runtime-endpoint runs it. Exit status as crictl's: 0, 1 on any error, or the
 * command's own status for exec.
 */
import { containerdPaths } from "../../containerd/index.ts";
import { createCriClient, isCriError } from "../../cri/index.ts";
import { flagUsage, parseCommandArgs, UsageError, type FlagSpec } from "./args.ts";
import type { Command, CrictlContext } from "./command.ts";
import { execCommand } from "./exec.ts";
import { loadDescriptors } from "./format.ts";
import { imagesCommand } from "./images.ts";
import { inspectCommand, inspectpCommand } from "./inspect.ts";
import { logsCommand } from "./logs.ts";
import { podsCommand } from "./pods.ts";
import { psCommand } from "./ps.ts";
import { statsCommand } from "./stats.ts";

const commands: Command[] = [podsCommand, psCommand, imagesCommand, inspectCommand, inspectpCommand, logsCommand, execCommand, statsCommand];

const DEFAULT_ROOT_DIR = "/var/lib/bunlet";

const globalFlags: FlagSpec[] = [
  { name: "runtime-endpoint", alias: "r", kind: "string", usage: "Endpoint of CRI container runtime service (default: the embedded containerd under --root-dir)" },
  { name: "image-endpoint", alias: "i", kind: "string", usage: "Endpoint of CRI image manager service (default: the runtime endpoint)" },
  { name: "timeout", alias: "t", kind: "string", usage: "Timeout of connecting to the server (accepted; calls use bunlet's CRI deadlines)" },
  { name: "debug", alias: "D", kind: "bool", usage: "Enable debug mode (accepted)" },
  { name: "root-dir", kind: "string", usage: `bunlet's --root-dir, whose embedded containerd to talk to (default: ${DEFAULT_ROOT_DIR})` },
  { name: "help", alias: "h", kind: "bool", usage: "show help" },
];

export interface CrictlIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  now(): number;
  signal: AbortSignal;
}

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 3;
  return (
    "NAME:\n   bunlet crictl - client for CRI, over bunlet's CRI client\n\nUSAGE:\n   bunlet crictl [global options] command [command options] [arguments...]\n\n" +
    `COMMANDS:\n${commands.map((c) => `   ${c.name.padEnd(width)}${c.usage}`).join("\n")}\n\nGLOBAL OPTIONS:\n${flagUsage(globalFlags)}\n`
  );
}

function commandHelp(c: Command): string {
  return `NAME:\n   bunlet crictl ${c.name} - ${c.usage}\n\nUSAGE:\n   bunlet crictl ${c.name} [command options] ${c.argsUsage}\n\nOPTIONS:\n${flagUsage(c.flags)}\n`;
}

/** The CRI endpoint to use, and the image endpoint (the same unless given). */
function resolveEndpoint(flags: { runtime?: string; rootDir?: string }, env: Record<string, string | undefined>): string {
  if (flags.runtime) return flags.runtime;
  if (env.CONTAINER_RUNTIME_ENDPOINT) return env.CONTAINER_RUNTIME_ENDPOINT;
  return `unix://${containerdPaths(flags.rootDir || DEFAULT_ROOT_DIR).socketPath}`;
}

export async function runCrictl(argv: readonly string[], io: CrictlIo): Promise<number> {
  await loadDescriptors();
  let global;
  try {
    global = parseCommandArgs(argv, globalFlags);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`bunlet crictl: ${err.message}\n`);
    return 1;
  }
  const [name, ...rest] = global.args;
  if (name === undefined || global.bools.has("help") || name === "help") {
    io.out(help());
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.err(`bunlet crictl: no such command ${JSON.stringify(name)}; bunlet crictl has ${commands.map((c) => c.name).join(", ")}\n`);
    return 1;
  }
  let parsed;
  try {
    parsed = parseCommandArgs(rest, [...command.flags, { name: "help", alias: "h", kind: "bool", usage: "show help" }]);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`bunlet crictl ${name}: ${err.message}\n\n${commandHelp(command)}`);
    return 1;
  }
  if (parsed.bools.has("help")) {
    io.out(commandHelp(command));
    return 0;
  }
  const endpoint = resolveEndpoint({ runtime: global.strings.get("runtime-endpoint"), rootDir: global.strings.get("root-dir") }, io.env);
  const imageEndpoint = global.strings.get("image-endpoint") || io.env.IMAGE_SERVICE_ENDPOINT || endpoint;
  const cri = createCriClient({ endpoint });
  const images = imageEndpoint === endpoint ? cri : createCriClient({ endpoint: imageEndpoint });
  const ctx: CrictlContext = { cri: { ...cri, image: images.image }, out: io.out, err: io.err, now: io.now, signal: io.signal };
  try {
    return await command.run(ctx, parsed);
  } catch (err) {
    if (io.signal.aborted) return 130;
    if (err instanceof UsageError) {
      io.err(`bunlet crictl ${name}: ${err.message}\n`);
      return 1;
    }
    const what = isCriError(err) ? `${err.message} (runtime endpoint ${endpoint})` : err instanceof Error ? err.message : String(err);
    io.err(`bunlet crictl ${name}: ${what}\n`);
    return 1;
  } finally {
    cri.close();
    if (images !== cri) images.close();
  }
}
