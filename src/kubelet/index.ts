// The kubelet core: the composition root (startAgent) and what main.ts needs from it.
export { startAgent, type Agent, type AgentDeps } from "./wire.ts";
export { RuntimeUnavailableError, MAX_WAIT_FOR_CONTAINER_RUNTIME_MS } from "./connect-runtime.ts";
export { lockRootDir, rootLockFiles, RootDirInUseError, ROOT_LOCK_FILE, type RootLock, type RootLockOptions } from "./root-lock.ts";
