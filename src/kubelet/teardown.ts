/**
 * Teardown of the agent's parts. Each wiring function collects what it started on an
 * AsyncDisposableStack, so its parts stop in reverse order of their start; a part that fails to
 * stop is logged and the shutdown goes on with the next one, as a half-stopped agent must still
 * release its sockets and the embedded containerd.
 */
import type { Logger } from "../lib/index.ts";

/** Registers `stop` on the stack under `name`; a failure is logged, not thrown. */
export function deferLogged(stack: AsyncDisposableStack, log: Logger, name: string, stop: () => PromiseLike<void> | void): void {
  stack.defer(async () => {
    try {
      await stop();
    } catch (err) {
      log.error("Failed to stop part of the agent; continuing the shutdown", { part: name, err });
    }
  });
}
