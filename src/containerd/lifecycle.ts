/**
 * The managed containerd's lifecycle as a state machine with a pure transition table:
 *
 *   starting → ready ⇄ restarting → stopping → stopped
 *
 * startManagedContainerd feeds it what happened to the child process and to the caller; the
 * table alone decides the state the `state` getter reports. An event a state does not expect
 * (a late "ready" after stop() was called, an exit while stopping) leaves the state as it is.
 */

export type ManagedContainerdState = "starting" | "ready" | "restarting" | "stopping" | "stopped";

export type ManagedContainerdEvent =
  /** The CRI probe answered on the socket. */
  | "ready"
  /** The containerd process exited without stop() having been called. */
  | "exited"
  /** stop() was called, or the caller's signal aborted. */
  | "stop"
  /** containerd is terminated, the supervisor and the log rotation have returned. */
  | "stopped";

const TRANSITIONS: Record<ManagedContainerdState, Partial<Record<ManagedContainerdEvent, ManagedContainerdState>>> = {
  starting: { ready: "ready", stop: "stopping" },
  ready: { exited: "restarting", stop: "stopping" },
  // A restarted containerd that exits again before answering stays in restarting.
  restarting: { ready: "ready", exited: "restarting", stop: "stopping" },
  stopping: { stopped: "stopped" },
  stopped: {},
};

export function nextContainerdState(state: ManagedContainerdState, event: ManagedContainerdEvent): ManagedContainerdState {
  return TRANSITIONS[state][event] ?? state;
}
