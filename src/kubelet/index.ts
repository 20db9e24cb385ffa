// The composition root (startAgent) and the start-up steps main.ts takes before it (root-dir lock, open files limit).
export { startAgent, type Agent } from "./wire.ts";
export { lockRootDir, rootLockFiles, RootDirInUseError, type RootLock } from "./root-lock.ts";
export { setMaxOpenFiles } from "./rlimit.ts";
export { evictionThresholds } from "./wire-upkeep.ts";
export { checkCgroupDriver } from "./wire-cm.ts";
