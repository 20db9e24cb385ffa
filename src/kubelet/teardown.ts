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

/** Hands a part to the agent's stack: it is disposed (logged, not thrown) when the agent stops. */
export type Adopt = <T extends AsyncDisposable>(name: string, part: T) => T;

export function adopter(stack: AsyncDisposableStack, log: Logger): Adopt {
  return (name, part) => {
    deferLogged(stack, log, name, () => part[Symbol.asyncDispose]());
    return part;
  };
}
