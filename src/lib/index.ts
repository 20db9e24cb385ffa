// The library layer: no imports from the rest of bunlet. Test helpers (FakeClock, the memory
// logger) have their own door, testing.ts.
export * from "./async/index.ts";
export { realClock, type Clock, type Timer } from "./clock.ts";
export { createLogger, silentLogger, type Logger, type Fields } from "./log.ts";
export { formatGoDuration } from "./duration.ts";
export { readYaml, YamlError } from "./yaml.ts";
export { ipFamily, parsePodCIDRs } from "./net.ts";
export { tryLockFile, LockHeldError, type FileLock } from "./lockfile.ts";
export { goDialError, goHttpGetError } from "./dial-error.ts";
export { canonicalJSON, cloneJson, deepEqual } from "./json.ts";
export { mountPointsUnder, runMountCommand } from "./mount.ts";
export { collectGarbage, IdleRelease, releaseFreeMemory } from "./idle-release.ts";
