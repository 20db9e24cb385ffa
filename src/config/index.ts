/**
 * bunlet's command line and KubeletConfiguration file. main.ts calls parseArgs and, on
 * ConfigError, prints its message and exits 2; everything else reads the BunletConfig.
 */
import type { Logger } from "../lib/index.ts";
import type { ConfigNotice } from "./types.ts";

export { parseArgs } from "./parse.ts";
export { ConfigError, type BunletConfig } from "./types.ts";
export { KUBELET_COMPAT_VERSION, nodeUserAgent, VERSION } from "./version.ts";
export { tlsPolicy } from "./tls.ts";
export { kubeletConfigz } from "./configz.ts";
export { qosReservedMemoryPercent } from "./cgroups.ts";
// The flag tables, for the generated flag reference (scripts/gen-flag-docs.ts).
export { allFlagDefs, type FlagDef } from "./flags.ts";

/** Logs what parseArgs noticed before a logger existed (ignored kubelet fields, inert gates). */
export function logConfigNotices(log: Logger, notices: readonly ConfigNotice[]): void {
  for (const n of notices) {
    if (n.level === "warn") log.warn(n.msg, n.fields);
    else log.debug(n.msg, n.fields, 2);
  }
}
