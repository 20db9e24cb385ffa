import type { ContainerdChild } from "./process.ts";
import { isAlive } from "./process.ts";
import type { Logger, Clock } from "./types.ts";

export interface TerminateOptions {
  clock: Clock;
  timeoutMs: number;
  log: Logger;
}

function signalPid(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig); // the pid only: never the group, where shims might be
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
  }
}

/** True once the child's exit is known: its pid may already belong to another process. */
async function hasExited(child: ContainerdChild): Promise<boolean> {
  const pending = Symbol("pending");
  // An exit that already settled wins the race: its reaction is queued before the marker's.
  return (await Promise.race([child.exited, Promise.resolve(pending)])) !== pending;
}

/**
 * SIGTERM, then SIGKILL if our child has not exited within the timeout. A child that has already
 * exited is not signalled: its pid may have been reused.
 */
export async function terminateChild(child: ContainerdChild, opts: TerminateOptions): Promise<void> {
  if (await hasExited(child)) return;
  signalPid(child.pid, "SIGTERM");
  const timer = new AbortController();
  const timedOut = await Promise.race([
    child.exited.then(() => false),
    opts.clock.sleep(opts.timeoutMs, timer.signal).then(
      () => true,
      () => false,
    ),
  ]);
  timer.abort();
  if (timedOut) {
    opts.log.warn("containerd did not exit after SIGTERM; sending SIGKILL", { pid: child.pid, afterMs: opts.timeoutMs });
    signalPid(child.pid, "SIGKILL");
  }
  await child.exited;
}

/** The same for a process that is not our child (a previous run's containerd): poll for it to go. */
export async function terminatePid(pid: number, opts: TerminateOptions): Promise<void> {
  const pollMs = 50;
  signalPid(pid, "SIGTERM");
  const killAt = opts.clock.now() + opts.timeoutMs;
  let killed = false;
  while (isAlive(pid)) {
    if (!killed && opts.clock.now() >= killAt) {
      opts.log.warn("containerd did not exit after SIGTERM; sending SIGKILL", { pid, afterMs: opts.timeoutMs });
      signalPid(pid, "SIGKILL");
      killed = true;
    }
    await opts.clock.sleep(pollMs);
  }
}
