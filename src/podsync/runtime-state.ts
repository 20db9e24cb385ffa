/**
 * Runtime readiness (kubelet.go updateRuntimeUp, runtime.go runtimeState): the CRI Status call,
 * every 5 s, says whether the runtime and its pod network are ready. The sync loop skips its
 * iterations while the runtime is not; the pod syncer refuses to start non-host-network pods while
 * the network is not; /healthz reports both. The checker owns the polling loop and its state.
 */
import { delay, type Clock, type Logger } from "../lib/index.ts";
import type { RuntimeHandlerStatus } from "../runtime/index.ts";
import type { RuntimeStatusSource } from "./types.ts";

/** updateRuntimeUp period. */
const RUNTIME_STATUS_PERIOD_MS = 5000;
/** While the runtime is down bunlet asks more often, so it resumes soon after the runtime returns. */
const RUNTIME_DOWN_RECHECK_MS = 1000;

/** baseRuntimeSyncThreshold (maxWaitForContainerRuntime): no good Status call for this long = "down". */
const RUNTIME_SYNC_THRESHOLD_MS = 30_000;

type State =
  | { kind: "unknown" }
  | { kind: "ready"; networkError?: string }
  | { kind: "notReady"; message: string }
  | { kind: "down"; message: string };

export class RuntimeState {
  #state: State = { kind: "unknown" };
  readonly #source: RuntimeStatusSource;
  readonly #log: Logger;
  readonly #now: () => number;
  /** When a Status call last said the runtime is ready: the kubelet's lastBaseRuntimeSync. */
  #lastReadyAt: number | undefined;
  /** The handlers of the last good Status answer (runtimeState.runtimeHandlers). */
  #handlers: readonly RuntimeHandlerStatus[] = [];

  constructor(source: RuntimeStatusSource, log: Logger, now: () => number) {
    this.#source = source;
    this.#log = log;
    this.#now = now;
  }

  /**
   * The kubelet's runtimeState.runtimeErrors() and networkErrors(), in its words, for the node's
   * Ready condition: "container runtime is down" only once no Status call has succeeded for 30 s,
   * so one lost call does not flip the node.
   */
  nodeReadinessErrors(): { runtime: string[]; network: string[] } {
    const runtime: string[] = [];
    if (this.#lastReadyAt === undefined) runtime.push("container runtime status check may not have completed yet");
    else if (this.#now() - this.#lastReadyAt > RUNTIME_SYNC_THRESHOLD_MS) runtime.push("container runtime is down");
    if (this.#state.kind === "notReady") runtime.push(`container runtime not ready: ${this.#state.message}`);
    const net = this.networkError();
    return { runtime, network: net === undefined ? [] : [`container runtime network not ready: ${net}`] };
  }

  /** Why pods cannot be synced now, or undefined when the runtime is ready. */
  runtimeError(): string | undefined {
    switch (this.#state.kind) {
      case "unknown":
        return "container runtime status check may not have completed yet";
      case "ready":
        return undefined;
      case "notReady":
        return `container runtime not ready: ${this.#state.message}`;
      case "down":
        return `container runtime is down: ${this.#state.message}`;
    }
  }

  /** The runtime's handlers and their features (user namespaces, recursive read-only mounts); none before the first answer. */
  runtimeHandlers(): readonly RuntimeHandlerStatus[] {
    return this.#handlers;
  }

  /** Why the pod network is not ready, or undefined when it is (or the runtime answers nothing). */
  networkError(): string | undefined {
    return this.#state.kind === "ready" ? this.#state.networkError : undefined;
  }

  /** One Status call; updates the state and logs transitions. */
  async check(signal: AbortSignal): Promise<void> {
    let next: State;
    try {
      const s = await this.#source.runtimeStatus({ signal });
      this.#handlers = s.handlers;
      if (!s.runtimeReady) next = { kind: "notReady", message: s.message || "RuntimeReady condition is false" };
      else {
        next = { kind: "ready", networkError: s.networkReady ? undefined : s.message || "NetworkReady condition is false" };
        this.#lastReadyAt = this.#now();
      }
    } catch (err) {
      // A call cut short by shutdown says nothing about the runtime.
      if (signal.aborted) return;
      next = { kind: "down", message: err instanceof Error ? err.message : String(err) };
    }
    this.#transition(next);
  }

  /** Checks every 5 s (every 1 s while not ready) until the signal aborts. */
  async run(clock: Clock, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.check(signal);
      const period = this.#state.kind === "ready" ? RUNTIME_STATUS_PERIOD_MS : RUNTIME_DOWN_RECHECK_MS;
      if (!(await delay(clock, period, signal))) return;
    }
  }

  #transition(next: State): void {
    const previous = this.#state;
    const beforeErr = this.runtimeError();
    const beforeNet = this.networkError();
    this.#state = next;
    const err = this.runtimeError();
    if (err !== undefined && err !== beforeErr) {
      this.#log.error("Container runtime is not usable; pod synchronization pauses until it is", { err });
    } else if (err === undefined && (previous.kind === "down" || previous.kind === "notReady")) {
      this.#log.info("Container runtime is ready again; pod synchronization resumes");
    }
    const net = this.networkError();
    if (net !== undefined && net !== beforeNet) this.#log.warn("Pod network is not ready; only host-network pods start", { err: net });
  }
}
