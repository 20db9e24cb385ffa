/**
 * Writing a fetch-style Response onto a node:http ServerResponse, with backpressure: the body
 * is read one chunk at a time and the next is read only once the socket took the last
 * (`write` returned true, or 'drain' came). A client that stops reading therefore stops the log
 * reader too, and bunlet holds at most the socket's high-water mark plus one chunk per response,
 * instead of everything the container writes meanwhile.
 */
import type { ServerResponse } from "node:http";

/** Resolves when the response can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

export async function send(res: ServerResponse, r: Response, headOnly: boolean): Promise<void> {
  const headers: Record<string, string> = {};
  r.headers.forEach((v, k) => {
    if (k !== "transfer-encoding" && k !== "content-length") headers[k] = v;
  });
  res.writeHead(r.status, headers);
  if (headOnly || r.body === null) {
    res.end();
    return;
  }
  // A followed log may stay quiet: the client gets the headers now, not with the first line.
  res.flushHeaders();
  const reader = r.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await drained(res);
      if (res.destroyed) break;
    }
  } catch {
    // The body failed half-way (a log file vanished): end what was sent.
  }
  res.end();
}

/** A plain-text answer; never a stack. */
export function textResponse(status: number, body: string, extra: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff", ...extra },
  });
}
