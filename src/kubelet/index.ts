// The kubelet core: the composition root (startAgent) and what main.ts needs from it.
export { startAgent, type Agent, type AgentDeps } from "./wire.ts";
export { RuntimeUnavailableError, MAX_WAIT_FOR_CONTAINER_RUNTIME_MS } from "./connect-runtime.ts";
export { lockRootDir, rootLockFiles, RootDirInUseError, type RootLock } from "./root-lock.ts";
