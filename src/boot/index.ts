/**
 * The start-up steps before and under the composition root, each with its own policy: the
 * root-dir lock (one bunlet per --root-dir, --exit-on-lock-contention), the open files limit
 * (--max-open-files), and the connection to the container runtime (the embedded containerd or
 * the endpoint, and the first 30 s wait for it); and the settings judged whole before anything
 * starts (eviction thresholds, the cgroup driver), and the root directory made before any area
 * reads it; and before all of them, JavaScriptCore's options (the built binary re-executes itself
 * once with them). main.ts takes the options, the lock, the limit and the checks; the wiring makes
 * the root directory, connects the runtime and uses the thresholds.
 */
export { connectRuntime } from "./connect-runtime.ts";
export { restartWithJscOptions } from "./jsc-options.ts";
export { lockRootDir, RootDirInUseError, type RootLock } from "./root-lock.ts";
export { setMaxOpenFiles } from "./rlimit.ts";
export { checkCgroupDriver, evictionThresholds } from "./settings.ts";
export { setupRootDir } from "./data-dirs.ts";
