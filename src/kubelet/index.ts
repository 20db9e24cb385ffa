// The kubelet core: the composition root (startAgent) and what main.ts needs from it.
export { startAgent, type Agent } from "./wire.ts";
export { lockRootDir, rootLockFiles, RootDirInUseError, type RootLock } from "./root-lock.ts";
export { setMaxOpenFiles } from "./rlimit.ts";
export { evictionThresholds } from "./wire-upkeep.ts";
export { checkCgroupDriver } from "./wire-cm.ts";
