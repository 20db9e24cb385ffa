/**
 * argv → the effective configuration: defaults < --config file < --config-dir drop-ins (in file
 * name order) < flags (the kubelet's precedence). Feature gates and manifest URL headers merge
 * per key (a higher layer wins for the keys it names); every other field is replaced whole by the
 * higher layer. Everything given that bunlet accepts but does not act on (file fields, kubelet
 * flags, feature gates) becomes one notice, logged at start as one line.
 */
import { readdirSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { validateCgroups } from "./cgroups.ts";
import { validateUpkeep } from "./upkeep.ts";
import { decodeConfigFile } from "./file.ts";
import { defaultGates, inertGates } from "./featuregates.ts";
import { parseFlags } from "./flags.ts";
import { helpText } from "./help.ts";
import { tlsPolicy } from "./tls.ts";
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

const processEnv: ParseEnv = {
  hostname: () => hostname(),
  readFile: (path) => readFileSync(path, "utf8"),
  readDir: (path) => readdirSync(path),
};

const readErrors: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EISDIR: "is a directory",
  ENOTDIR: "not a directory",
};

function readError(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? (readErrors[code] ?? code) : String(err).split("\n")[0];
}

function readConfig(path: string, env: ParseEnv, flag = "--config"): string {
  try {
    return env.readFile(path);
  } catch (err) {
    throw new ConfigError(flag, `bunlet: cannot read config file ${JSON.stringify(path)}: ${readError(err)}`);
  }
}

/** The drop-ins of --config-dir: its *.conf files, in name order (the kubelet's rule). */
function dropInFiles(dir: string, env: ParseEnv): string[] {
  let names: string[];
  try {
    names = (env.readDir ?? readdirSync)(dir) as string[];
  } catch (err) {
    throw new ConfigError("--config-dir", `bunlet: cannot read config directory ${JSON.stringify(dir)}: ${readError(err)}`);
  }
  return names.filter((n) => n.endsWith(".conf")).sort().map((n) => join(dir, n));
}

/** A higher layer over a lower one: whole fields, except the maps merged per key. */
function overlay(lower: ConfigLayer, higher: ConfigLayer): ConfigLayer {
  const out: ConfigLayer = { ...lower, ...higher };
  if (lower.featureGates && higher.featureGates) out.featureGates = { ...lower.featureGates, ...higher.featureGates };
  if (lower.staticPodURLHeader && higher.staticPodURLHeader) {
    out.staticPodURLHeader = { ...lower.staticPodURLHeader, ...higher.staticPodURLHeader };
  }
  return out;
}

/** One line listing what was given and is not acted on: file fields, kubelet flags, gates. */
function notActedOn(parts: { fields: string[]; flags: { flag: string; field?: string }[]; gates: string[]; other: string[] }): ConfigNotice[] {
  const settings = [
    ...new Set([
      ...parts.fields,
      ...parts.flags.map((f) => (f.field ? `${f.flag} (${f.field})` : f.flag)),
      ...parts.gates.map((g) => `featureGates.${g}`),
      ...parts.other,
    ]),
  ];
  if (settings.length === 0) return [];
  return [{ level: "warn", msg: "kubelet settings accepted for compatibility but not acted on by bunlet", fields: { settings: settings.join(", ") } }];
}

export function parseArgs(argv: readonly string[], env: ParseEnv = processEnv): ParseResult {
  const flags = parseFlags(argv);
  if (flags.help) return { kind: "help", text: helpText() };
  if (flags.version) return { kind: "version", text: versionText() };

  let file: ConfigLayer = {};
  const ignoredFields: string[] = [];
  if (flags.configPath !== undefined) {
    if (flags.configPath === "") throw new ConfigError("--config", "bunlet: --config needs a file path, found an empty string");
    const decoded = decodeConfigFile(flags.configPath, readConfig(flags.configPath, env));
    file = decoded.layer;
    ignoredFields.push(...decoded.ignored);
  }
  if (flags.configDir !== undefined && flags.configDir !== "") {
    for (const dropIn of dropInFiles(flags.configDir, env)) {
      const decoded = decodeConfigFile(dropIn, readConfig(dropIn, env, "--config-dir"));
      file = overlay(file, decoded.layer);
      ignoredFields.push(...decoded.ignored);
    }
  }

  const explicitGates = { ...file.featureGates, ...flags.layer.featureGates };
  // A gate left at its default behaves as asked; only the others are settings bunlet ignores.
  const gates = inertGates(explicitGates)
    .filter((g) => g.value !== g.default)
    .map((g) => `${g.name}=${g.value}`);

  const merged: BunletConfig = {
    ...defaults,
    kubeletAddress: "0.0.0.0",
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
  // The kubelet API is authenticated and listens where the kubelet's does (0.0.0.0) unless
  // --address says otherwise; the read-only port keeps bunlet's loopback default.
  merged.kubeletAddress = flags.layer.address ?? file.address ?? "0.0.0.0";
  if (merged.certDir === "") merged.certDir = join(merged.rootDir, "pki");
  if ((merged.tlsCertFile === "") !== (merged.tlsPrivateKeyFile === "")) {
    const missing = merged.tlsCertFile === "" ? "--tls-cert-file" : "--tls-private-key-file";
    throw new ConfigError(missing, `bunlet: ${missing} is needed too: give both --tls-cert-file and --tls-private-key-file, or neither for a self-signed certificate`);
  }
  const settingsProblem = validateUpkeep(merged) ?? validateCgroups(merged);
  if (settingsProblem) throw new ConfigError("--config", `bunlet: ${settingsProblem}`);
  // The kubelet's server.go: with cgroupsPerQOS and no cgroupRoot, kubepods goes under "/".
  if (merged.cgroupsPerQOS && merged.cgroupRoot === "") merged.cgroupRoot = "/";
  const other: string[] = [];
  const notices = notActedOn({ fields: ignoredFields, flags: flags.ignored, gates, other });
  // The kubelet's start-up lines about its TLS settings (an insecure suite, suites under TLS 1.3).
  for (const w of tlsPolicy(merged.tlsMinVersion, merged.tlsCipherSuites).warnings) notices.push({ level: "warn", ...w });
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
