/**
 * bunlet's command line and KubeletConfiguration file. main.ts calls parseArgs and, on
 * ConfigError, prints its message and exits 2; everything else reads the BunletConfig.
 */
import type { Logger } from "../lib/index.ts";
import type { ConfigNotice } from "./types.ts";

export { parseArgs, processEnv } from "./parse.ts";
export { helpText } from "./help.ts";
export { VERSION, versionText } from "./version.ts";
export { parseDuration, DurationError } from "./duration.ts";
export { knownGates } from "./featuregates.ts";
export { flagDefs, type FlagDef } from "./flags.ts";
export { KUBELET_CONFIG_API_VERSION, KUBELET_CONFIG_KIND } from "./file.ts";
export {
  ConfigError,
  defaults,
  DEFAULT_READ_ONLY_PORT,
  type BunletConfig,
  type ConfigNotice,
  type LoggingFormat,
  type ParseEnv,
  type ParseResult,
} from "./types.ts";

/** Logs what parseArgs noticed before a logger existed (ignored kubelet fields, inert gates). */
export function logConfigNotices(log: Logger, notices: readonly ConfigNotice[]): void {
  for (const n of notices) {
    if (n.level === "warn") log.warn(n.msg, n.fields);
    else log.debug(n.msg, n.fields, 2);
  }
}
