/**
 * Whether the apiserver answers this node's heartbeats, as the Lease renewals find it. It goes
 * silent when a renewal gets no answer (the apiserver unreachable, or frozen past the heartbeat
 * client's deadline), and comes back only once a renewal has succeeded and the Node's status has
 * been reported after it: so when the apiserver answers again, the Lease and the Node's status
 * are what it hears first, and the pods' statuses (which wait on `answering`) follow. A renewal
 * refused for any other reason (403, 409, 500) says the apiserver is there: it stays answering.
 *
 *   answering ──renewal unanswered──▶ silent ──renewal succeeded──▶ reporting
 *       ▲                               ▲                              │
 *       └──────node status reported─────┼──────────────────────────────┘
 *                                       └──node status unanswered──────┘
 */
import { isUnreachable } from "../apiclient/index.ts";

export type HeartbeatState = "answering" | "silent" | "reporting";

export interface Heartbeat {
  state(): HeartbeatState;
  /** Resolves at once while answering, else once the apiserver has had the Lease and the Node's status (or the signal aborts). */
  answering(signal: AbortSignal): Promise<void>;
}

export interface HeartbeatTracker extends Heartbeat {
  /** A renewal's outcome: undefined for success, else the error. Returns true when the Node's status must now be reported. */
  renewed(err?: unknown): boolean;
  /** The report after a renewal came back: undefined for success, else the error. */
  reported(err?: unknown): void;
}

export function createHeartbeat(onChange?: (from: HeartbeatState, to: HeartbeatState) => void): HeartbeatTracker {
  let state: HeartbeatState = "answering";
  let waiters: (() => void)[] = [];
  const move = (to: HeartbeatState) => {
    if (to === state) return;
    const from = state;
    state = to;
    onChange?.(from, to);
    if (to === "answering") {
      for (const w of waiters) w();
      waiters = [];
    }
  };
  return {
    state: () => state,
    answering(signal) {
      if (state === "answering" || signal.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          signal.removeEventListener("abort", done);
          resolve();
        };
        waiters.push(done);
        signal.addEventListener("abort", done, { once: true });
      });
    },
    renewed(err) {
      if (err === undefined) {
        if (state !== "silent") return false;
        move("reporting");
        return true;
      }
      if (isUnreachable(err)) move("silent");
      return false;
    },
    reported(err) {
      if (state !== "reporting") return;
      move(err !== undefined && isUnreachable(err) ? "silent" : "answering");
    },
  };
}

/**
 * The heartbeat client's deadline per request (cmd/kubelet/app/server.go): the node status update
 * frequency, capped by the lease duration, so a frozen apiserver is noticed before the Lease runs out.
 */
export function heartbeatTimeoutMs(nodeStatusUpdateFrequencyMs: number, nodeLeaseDurationSeconds: number): number {
  return Math.min(nodeStatusUpdateFrequencyMs, nodeLeaseDurationSeconds * 1000);
}
