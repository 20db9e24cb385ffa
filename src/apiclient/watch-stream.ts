/**
 * A watch's answer as events: each decoded event until the server ends the watch; an ERROR event
 * is thrown as an ApiError (410 = relist), a broken or silent stream as one with code 0.
 */
import type { Status } from "kubernetes-types/meta/v1";
import { ApiError, errorFromStatus } from "./errors.ts";
import type { Call, Sent, WatchEvent } from "./types.ts";
import { decodeWatchBody } from "./watch-decoder.ts";

export async function* watchEvents<T>(send: (c: Call) => Promise<Sent>, call: Call, clientSignal: AbortSignal | undefined, server: string): AsyncGenerator<WatchEvent<T>> {
  const what = `watch ${call.path}`;
  const sent = await send(call);
  const { res, release } = sent;
  if (!res.body) return release();
  try {
    for await (const e of decodeWatchBody(res.body)) {
      if (e.type === "ERROR") throw errorFromStatus(what, e.object as Status);
      yield e as WatchEvent<T>;
    }
  } catch (err) {
    const aborted = clientSignal?.aborted || call.signal?.aborted;
    if (aborted || err instanceof ApiError) throw err;
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
    release();
  }
}
