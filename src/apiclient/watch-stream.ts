/**
 * A watch's answer as events: each decoded event until the server ends the watch; an ERROR event
 * is thrown as an ApiError (410 = relist), a broken or silent stream as one with code 0.
 */
import type { Status } from "kubernetes-types/meta/v1";
import type { Clock, Timer } from "../lib/index.ts";
import { ApiError, errorFromStatus } from "./errors.ts";
import type { Call, Sent, WatchEvent } from "./types.ts";
import { decodeWatchBody } from "./watch-decoder.ts";

interface WatchStreamOptions {
  clientSignal?: AbortSignal;
  server: string;
  clock: Clock;
  /** 0 = no idle limit. */
  idleTimeoutMs: number;
}

export async function* watchEvents<T>(send: (c: Call) => Promise<Sent>, call: Call, opts: WatchStreamOptions): AsyncGenerator<WatchEvent<T>> {
  const { clientSignal, server, clock, idleTimeoutMs } = opts;
  const what = `watch ${call.path}`;
  const sent = await send(call);
  const { res, release } = sent;
  if (!res.body) return release();
  // Restarted at every event; when it fires the request is ended and the watch fails below.
  let idle = false;
  let idleTimer: Timer | undefined;
  const arm = () => {
    idleTimer?.cancel();
    if (idleTimeoutMs > 0) {
      idleTimer = clock.setTimer(idleTimeoutMs, () => {
        idle = true;
        sent.abort();
      });
    }
  };
  arm();
  try {
    for await (const e of decodeWatchBody(res.body)) {
      arm();
      if (e.type === "ERROR") throw errorFromStatus(what, e.object as Status);
      yield e as WatchEvent<T>;
    }
  } catch (err) {
    const aborted = clientSignal?.aborted || call.signal?.aborted;
    if (aborted || err instanceof ApiError) throw err;
    if (idle) {
      throw new ApiError(`${what}: nothing from ${server} for ${idleTimeoutMs / 1000} s (not even a bookmark, which comes every minute); the watch was abandoned`, {
        code: 0,
        reason: "ClientTimeout",
        cause: err,
      });
    }
    if (sent.timedOut()) {
      throw new ApiError(`${what}: ${server} neither ended the watch nor sent anything within ${sent.timeoutMs / 1000} s; the watch was abandoned`, {
        code: 0,
        reason: "ClientTimeout",
        cause: err,
      });
    }
    // The connection dropped or the stream broke mid-event: the watch ends with a reason.
    throw new ApiError(`${what}: the stream from ${server} broke: ${(err as Error).message ?? String(err)}`, {
      code: 0,
      reason: "ConnectionFailed",
      cause: err,
    });
  } finally {
    idleTimer?.cancel();
    release();
  }
}
