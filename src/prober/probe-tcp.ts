/**
 * The tcpSocket probe (pkg/probe/tcp): success when a TCP connection to host:port opens within
 * the timeout; the connection is closed at once. Any error (refused, unreachable, timeout) is a
 * failure whose output names the address, as Go's dialer does.
 */
import { connect } from "node:net";
import type { Clock } from "../lib/index.ts";
import type { ProbeOutcome } from "./probe-types.ts";

export interface TcpProbeRequest {
  host: string;
  port: number;
  timeoutMs: number;
  clock: Clock;
  signal?: AbortSignal;
}

export function probeTcp(req: TcpProbeRequest): Promise<ProbeOutcome> {
  const address = req.host.includes(":") ? `[${req.host}]:${req.port}` : `${req.host}:${req.port}`;
  return new Promise<ProbeOutcome>((resolve, reject) => {
    if (req.signal?.aborted) return reject(req.signal.reason);
    const socket = connect({ host: req.host, port: req.port });
    const finish = (outcome: ProbeOutcome | { abort: unknown }) => {
      timer.cancel();
      req.signal?.removeEventListener("abort", onAbort);
      socket.removeAllListeners();
      socket.on("error", () => undefined); // a late error after destroy must not go unhandled
      socket.destroy();
      if ("abort" in outcome) reject(outcome.abort);
      else resolve(outcome);
    };
    const onAbort = () => finish({ abort: req.signal!.reason });
    const timer = req.clock.setTimer(req.timeoutMs, () =>
      finish({ result: "Failure", output: `dial tcp ${address}: i/o timeout after ${req.timeoutMs / 1000}s` }),
    );
    req.signal?.addEventListener("abort", onAbort, { once: true });
    socket.once("connect", () => finish({ result: "Success", output: "" }));
    socket.once("error", (err) => finish({ result: "Failure", output: `dial tcp ${address}: ${err.message}` }));
  });
}
