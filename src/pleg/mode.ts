/**
 * Which PLEG is in charge, as a state machine with a pure transition table. The kubelet falls
 * back from the event stream to relisting for good; bunlet keeps re-probing the stream with
 * backoff and returns to evented mode once a stream stays up.
 */

export type PlegMode = "evented" | "generic";

export type PlegModeState =
  /** The EventedPLEG gate is off: relisting only, nothing ever changes. */
  | { kind: "generic-only" }
  /** The event stream is in use (or reconnecting); `failures` counts consecutive failed streams. */
  | { kind: "evented"; failures: number }
  /** Fell back to relisting; the stream is re-probed after probeDelayMs. */
  | { kind: "fallen-back"; probeDelayMs: number }
  /** A re-probe stream is open and has not yet stayed up long enough. */
  | { kind: "probing"; probeDelayMs: number };

export type PlegModeInput = "stream-established" | "stream-failed" | "probe-due";

export type PlegModeAction =
  | "count-success"
  | "count-error"
  /** Relist at once so nothing that happened while the stream was down is missed. */
  | "force-relist"
  /** Relist at the generic period, stop the global cache updates, report generic mode. */
  | "fall-back"
  /** Relist at the evented safety-net period, resume global cache updates, report evented mode. */
  | "switch-back";

export interface ModeLimits {
  maxStreamRetries: number;
  reprobeInitialMs: number;
  reprobeMaxMs: number;
}

export interface Transition {
  state: PlegModeState;
  actions: PlegModeAction[];
}

export function initialModeState(eventedEnabled: boolean): PlegModeState {
  return eventedEnabled ? { kind: "evented", failures: 0 } : { kind: "generic-only" };
}

export function modeOf(state: PlegModeState): PlegMode {
  return state.kind === "evented" ? "evented" : "generic";
}

export function transition(state: PlegModeState, input: PlegModeInput, limits: ModeLimits): Transition {
  switch (state.kind) {
    case "evented":
      if (input === "stream-established") return { state: { kind: "evented", failures: 0 }, actions: ["count-success"] };
      if (input === "stream-failed") {
        const failures = state.failures + 1;
        if (failures >= limits.maxStreamRetries) {
          return {
            state: { kind: "fallen-back", probeDelayMs: limits.reprobeInitialMs },
            actions: ["count-error", "force-relist", "fall-back"],
          };
        }
        return { state: { kind: "evented", failures }, actions: ["count-error", "force-relist"] };
      }
      break;
    case "fallen-back":
      if (input === "probe-due") return { state: { kind: "probing", probeDelayMs: state.probeDelayMs }, actions: [] };
      break;
    case "probing":
      if (input === "stream-established") {
        return { state: { kind: "evented", failures: 0 }, actions: ["count-success", "switch-back"] };
      }
      if (input === "stream-failed") {
        // Relisting already runs every second here; only the next probe moves further out.
        const probeDelayMs = Math.min(state.probeDelayMs * 2, limits.reprobeMaxMs);
        return { state: { kind: "fallen-back", probeDelayMs }, actions: ["count-error"] };
      }
      break;
    case "generic-only":
      break;
  }
  return { state, actions: [] };
}
