/**
 * The upkeep area of the wiring (issue 19, what keeps an unattended node alive): container log
 * rotation. Nothing here starts a pod; everything runs from start() until shutdown, which stops
 * the loops and waits for them.
 */
import type { BunletConfig } from "../config/index.ts";
import { ContainerLogManager } from "../logs/index.ts";
import { deferLogged } from "./teardown.ts";
import type { RuntimeParts, WireBase } from "./wire-runtime.ts";

export interface UpkeepParts extends AsyncDisposable {
  /** Starts the loops; they run until shutdown. */
  start(): void;
}

export function wireUpkeep(config: BunletConfig, base: WireBase, rt: Pick<RuntimeParts, "cri">): UpkeepParts {
  const { clock, log } = base;
  const stack = new AsyncDisposableStack();
  const logManager = new ContainerLogManager(
    { cri: rt.cri, clock, log },
    {
      maxSize: config.containerLogMaxSize,
      maxFiles: config.containerLogMaxFiles,
      maxWorkers: config.containerLogMaxWorkers,
      monitorIntervalMs: config.containerLogMonitorIntervalMs,
      totalCap: config.podLogsMaxTotalSize,
      podLogsDir: config.podLogsDir,
    },
  );
  return {
    start() {
      const loops = new AbortController();
      const running = Promise.all([logManager.run(loops.signal)]);
      deferLogged(stack, log, "node upkeep (log rotation)", async () => {
        loops.abort();
        await running;
      });
    },
    [Symbol.asyncDispose]: () => stack.disposeAsync(),
  };
}
