/**
 * What the "processes" inside fake containers do: rules a test sets per container (exit by
 * itself N ms after start, exit code when stopped with a grace period) and scripted ExecSync
 * results. The newest matching rule wins. Exit timers run on the fake's clock and are cancelled
 * when the container stops, is removed, or the fake stops.
 */
import type { Clock, Timer } from "../../src/lib/index.ts";
import type { ContainerHooks, ExitOptions } from "./store.ts";
import type { FakeContainer } from "./types.ts";

/** Selects containers by name, image, or the start of command+args, or by a predicate. */
export type ContainerMatcher = { name?: string; image?: string; command?: string[] } | ((container: FakeContainer) => boolean);

export interface ContainerBehavior {
  /** Exit by itself this many ms after StartContainer (0 = right after the start is answered). */
  afterMs?: number;
  /** Exit code of that exit; default 0. */
  exitCode?: number;
  oom?: boolean;
  reason?: string;
  message?: string;
  /**
   * Exit code when StopContainer gives a grace period. Default 143 (died of SIGTERM, as busybox
   * `sleep` does under containerd); 0 for a process that handles SIGTERM; 137 for one that ignores it.
   */
  stopExitCode?: number;
}

export interface ExecResult {
  stdout?: string | Uint8Array;
  stderr?: string | Uint8Array;
  exitCode?: number;
  /** How long the command "runs"; a CRI timeout shorter than this fails with DEADLINE_EXCEEDED. */
  delayMs?: number;
}

/** Matches when cmd starts with these arguments, or by predicate. */
export type ExecMatcher = string[] | ((cmd: string[], container: FakeContainer) => boolean);

function startsWith(list: string[], prefix: string[]): boolean {
  return prefix.length <= list.length && prefix.every((p, i) => list[i] === p);
}

function matches(matcher: ContainerMatcher, c: FakeContainer): boolean {
  if (typeof matcher === "function") return matcher(c);
  if (matcher.name !== undefined && matcher.name !== c.name) return false;
  if (matcher.image !== undefined && matcher.image !== c.image) return false;
  if (matcher.command !== undefined && !startsWith([...c.command, ...c.args], matcher.command)) return false;
  return true;
}

/** `echo` prints its arguments, `false` fails; anything else unscripted succeeds silently. */
function builtinExec(cmd: string[]): ExecResult {
  if (cmd[0] === "echo") return { stdout: `${cmd.slice(1).join(" ")}\n`, exitCode: 0 };
  if (cmd[0] === "false") return { exitCode: 1 };
  return { exitCode: 0 };
}

export class Behaviors implements ContainerHooks {
  readonly #rules: { matcher: ContainerMatcher; behavior: ContainerBehavior }[] = [];
  readonly #exec: { matcher: ExecMatcher; result: ExecResult }[] = [];
  readonly #createHooks: ((container: FakeContainer) => void)[] = [];
  readonly #timers = new Map<string, Timer>();
  /** Set by the owner once the store exists: how a scheduled exit reaches the state. */
  exit: (id: string, exitCode: number, options: ExitOptions) => void = () => {};

  constructor(private readonly clock: Clock) {}

  setContainerBehavior(matcher: ContainerMatcher, behavior: ContainerBehavior): void {
    this.#rules.unshift({ matcher, behavior });
  }

  setExecResult(matcher: ExecMatcher, result: ExecResult): void {
    this.#exec.unshift({ matcher, result });
  }

  onCreate(fn: (container: FakeContainer) => void): void {
    this.#createHooks.push(fn);
  }

  execResult(cmd: string[], container: FakeContainer): ExecResult {
    const rule = this.#exec.find(({ matcher }) => (typeof matcher === "function" ? matcher(cmd, container) : startsWith(cmd, matcher)));
    return rule?.result ?? builtinExec(cmd);
  }

  #behavior(c: FakeContainer): ContainerBehavior | undefined {
    return this.#rules.find(({ matcher }) => matches(matcher, c))?.behavior;
  }

  stopExitCode(c: FakeContainer): number {
    return this.#behavior(c)?.stopExitCode ?? 143;
  }

  created(c: FakeContainer): void {
    for (const hook of this.#createHooks) hook(c);
  }

  started(c: FakeContainer): void {
    const b = this.#behavior(c);
    if (b?.afterMs === undefined) return;
    const timer = this.clock.setTimer(b.afterMs, () => {
      this.#timers.delete(c.id);
      this.exit(c.id, b.exitCode ?? 0, { oom: b.oom, reason: b.reason, message: b.message });
    });
    this.#timers.set(c.id, timer);
  }

  finished(c: FakeContainer): void {
    this.#timers.get(c.id)?.cancel();
    this.#timers.delete(c.id);
  }

  /** Cancels every scheduled exit (the fake is stopping). */
  cancelAll(): void {
    for (const timer of this.#timers.values()) timer.cancel();
    this.#timers.clear();
  }
}
