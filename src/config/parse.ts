/**
 * argv → the effective configuration: defaults < --config file < flags (the kubelet's
 * precedence). Feature gates merge per gate (a flag wins for the gates it names); every other
 * field is replaced whole by the higher layer.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { decodeConfigFile } from "./file.ts";
import { defaultGates, inertGates } from "./featuregates.ts";
import { parseFlags } from "./flags.ts";
import { helpText } from "./help.ts";
import {
  ConfigError,
  defaults,
  DEFAULT_READ_ONLY_PORT,
  type BunletConfig,
  type ConfigLayer,
  type ConfigNotice,
  type ParseEnv,
  type ParseResult,
} from "./types.ts";
import { versionText } from "./version.ts";

export const processEnv: ParseEnv = {
  hostname: () => hostname(),
  readFile: (path) => readFileSync(path, "utf8"),
};

const readErrors: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EISDIR: "is a directory",
  ENOTDIR: "not a directory",
};

function readConfig(path: string, env: ParseEnv): string {
  try {
    return env.readFile(path);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const why = typeof code === "string" ? (readErrors[code] ?? code) : String(err).split("\n")[0];
    throw new ConfigError("--config", `bunlet: cannot read config file ${JSON.stringify(path)}: ${why}`);
  }
}

export function parseArgs(argv: readonly string[], env: ParseEnv = processEnv): ParseResult {
  const flags = parseFlags(argv);
  if (flags.help) return { kind: "help", text: helpText() };
  if (flags.version) return { kind: "version", text: versionText() };

  let file: ConfigLayer = {};
  const notices: ConfigNotice[] = [];
  if (flags.configPath !== undefined) {
    if (flags.configPath === "") throw new ConfigError("--config", "bunlet: --config needs a file path, found an empty string");
    const decoded = decodeConfigFile(flags.configPath, readConfig(flags.configPath, env));
    file = decoded.layer;
    notices.push(...decoded.notices);
  }

  const explicitGates = { ...file.featureGates, ...flags.layer.featureGates };
  for (const g of inertGates(explicitGates)) {
    notices.push({
      level: g.value === g.default ? "debug" : "warn",
      msg: "feature gate has no effect in bunlet; it behaves as the gate's default",
      fields: { gate: g.name, value: g.value, default: g.default },
    });
  }

  const merged: BunletConfig = {
    ...defaults,
    staticPodURLHeader: {},
    nodeName: "",
    nodeIPs: [],
    nodeLabels: {},
    registerWithTaints: [],
    // For backward compatibility the kubelet defaults nodeStatusReportFrequency to a
    // nodeStatusUpdateFrequency the config file sets (defaults.go).
    ...(file.nodeStatusUpdateFrequencyMs !== undefined && file.nodeStatusReportFrequencyMs === undefined
      ? { nodeStatusReportFrequencyMs: file.nodeStatusUpdateFrequencyMs }
      : {}),
    // Legacy defaults: the kubelet opens the read-only port only when run without a config file.
    readOnlyPort: flags.configPath === undefined ? DEFAULT_READ_ONLY_PORT : 0,
    ...file,
    ...flags.layer,
    featureGates: { ...defaultGates(), ...explicitGates },
  };
  merged.nodeName = (merged.nodeName.trim() || env.hostname().trim()).toLowerCase();
  // The node name becomes part of every static pod's name, so it must be a DNS subdomain.
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(merged.nodeName) || merged.nodeName.length > 253) {
    const given = flags.layer.nodeName !== undefined;
    throw new ConfigError(
      "--hostname-override",
      `bunlet: node name ${JSON.stringify(merged.nodeName)}${given ? "" : " (the OS hostname)"} is not a valid DNS subdomain; set --hostname-override`,
    );
  }
  return { kind: "run", config: merged, notices };
}
