/**
 * The JSON watch stream: one `{"type": ..., "object": ...}` per line (the apiserver writes each
 * event with a JSON encoder, which ends it with a newline; a newline never occurs inside the
 * JSON). Chunks from the network split events anywhere, even inside a UTF-8 sequence, so the
 * decoder keeps the unfinished tail for the next chunk.
 */

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface RawWatchEvent {
  type: WatchEventType;
  /** The object; a metav1.Status for ERROR. */
  object: unknown;
}

const types = new Set<string>(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]);

export class WatchDecodeError extends Error {
  override readonly name = "WatchDecodeError";
}

export class WatchDecoder {
  readonly #text = new TextDecoder("utf-8", { fatal: false });
  #pending = "";

  /** The events completed by this chunk, in order. */
  push(chunk: Uint8Array): RawWatchEvent[] {
    this.#pending += this.#text.decode(chunk, { stream: true });
    const events: RawWatchEvent[] = [];
    let nl: number;
    while ((nl = this.#pending.indexOf("\n")) >= 0) {
      const line = this.#pending.slice(0, nl);
      this.#pending = this.#pending.slice(nl + 1);
      if (line.trim() !== "") events.push(parseEvent(line));
    }
    return events;
  }

  /** The stream ended: an event without its newline still counts; anything else is an error. */
  end(): RawWatchEvent[] {
    this.#pending += this.#text.decode();
    const rest = this.#pending.trim();
    this.#pending = "";
    return rest === "" ? [] : [parseEvent(rest)];
  }
}

function parseEvent(line: string): RawWatchEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new WatchDecodeError(`watch stream: not a JSON event: ${line.slice(0, 120)}`);
  }
  const e = parsed as { type?: unknown; object?: unknown };
  if (typeof e !== "object" || e === null || typeof e.type !== "string" || !types.has(e.type) || typeof e.object !== "object" || e.object === null) {
    throw new WatchDecodeError(`watch stream: expected {"type": ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, "object": {...}}, found ${line.slice(0, 120)}`);
  }
  return { type: e.type as WatchEventType, object: e.object };
}

/** Decodes a response body into events as they arrive. */
export async function* decodeWatchBody(body: ReadableStream<Uint8Array>): AsyncGenerator<RawWatchEvent> {
  const decoder = new WatchDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* decoder.push(value);
    }
    yield* decoder.end();
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}
