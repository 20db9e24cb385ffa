// The library layer: no imports from the rest of bunlet.
export * from "./async/index.ts";
export { realClock, FakeClock, flushMicrotasks, type Clock, type Timer } from "./clock.ts";
export { createLogger, createMemoryLogger, silentLogger, type Logger, type Fields, type LogFormat } from "./log.ts";
export { readYaml, YamlError } from "./yaml.ts";
export { ipFamily, parseCIDR, parsePodCIDRs, type CIDR, type IPFamily } from "./net.ts";
export { tryLockFile, LockHeldError, type FileLock } from "./lockfile.ts";
