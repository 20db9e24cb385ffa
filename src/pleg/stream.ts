/**
 * One GetContainerEvents stream, from opening to failure. The caller owns the retry policy; this
 * only reports when the stream counts as connected (its first event, or having stayed open long
 * enough) and how it ended.
 */
import type { ContainerEventResponse } from "../cri/index.ts";
import { anySignal, type Clock } from "../lib/index.ts";
import type { ContainerEventSource } from "./deps.ts";

export type StreamOutcome = { kind: "failed"; error: unknown } | { kind: "stopped" };

export interface WatchOptions {
  source: ContainerEventSource;
  clock: Clock;
  /** Stops the stream; the outcome is then "stopped", never "failed". */
  signal: AbortSignal;
  /** Counts the stream as connected after it stayed open this long. */
  establishAfterMs: number;
  /** Also count it as connected on its first event. */
  establishOnEvent: boolean;
  onEstablished(): void;
  onEvent(event: ContainerEventResponse): void;
}

class StreamEndedError extends Error {
  constructor() {
    super("GetContainerEvents stream ended");
    this.name = "StreamEndedError";
  }
}

export async function watchContainerEvents(opts: WatchOptions): Promise<StreamOutcome> {
  const own = new AbortController();
  let established = false;
  const establish = () => {
    if (established) return;
    established = true;
    timer.cancel();
    opts.onEstablished();
  };
  const timer = opts.clock.setTimer(opts.establishAfterMs, establish);
  try {
    for await (const event of opts.source.getContainerEvents(anySignal(opts.signal, own.signal))) {
      if (opts.establishOnEvent) establish();
      opts.onEvent(event);
    }
    if (opts.signal.aborted) return { kind: "stopped" };
    return { kind: "failed", error: new StreamEndedError() };
  } catch (error) {
    if (opts.signal.aborted) return { kind: "stopped" };
    return { kind: "failed", error };
  } finally {
    timer.cancel();
    own.abort();
  }
}
