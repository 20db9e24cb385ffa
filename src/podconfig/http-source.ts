/**
 * The HTTP source (the kubelet's sourceURL, http.go): GETs --manifest-url with the configured
 * headers every httpCheckFrequency, with a 10 s timeout, and sends the decoded Pod or PodList as
 * the source's snapshot. An identical body is not decoded or sent again. An empty body sends an
 * empty snapshot (the source counts as seen). A non-200 answer, a transport error or a body that
 * does not decode sends nothing, so until a good answer arrives the source is not seen and the
 * pods it gave before stay as they are. Failures are logged at warning level for the first three
 * and then at most once a minute.
 */
import { HTTPSource as HTTPSourceName, type Pod } from "../api/index.ts";
import { goHttpGetError, isAbortError, runEvery, type Clock, type Logger } from "../lib/index.ts";
import { decodeManifestList, maxConfigLength } from "./decode.ts";
import { ManifestError } from "./errors.ts";
import type { ManifestErrorMetrics } from "./file-source.ts";
import type { PodSource } from "./source.ts";

export interface HttpSourceOptions {
  url: string;
  /** Request headers; a name may repeat (--manifest-url-header Name:Value, given several times). */
  headers?: Record<string, string[]>;
  nodeName: string;
  clock: Clock;
  log: Logger;
  periodMs: number;
  /** Deadline of one request; the kubelet's client uses 10 s. */
  timeoutMs?: number;
  metrics: ManifestErrorMetrics;
  onSnapshot: (pods: Pod[]) => Promise<void>;
  fetch?: typeof fetch;
}

/** What one poll did: sent a snapshot (possibly empty), saw the same body again, or failed. */
export type PollResult = "sent" | "unchanged" | "failed";

const loudFailures = 3;
const quietLogIntervalMs = 60_000;

/** Reads a response body, refusing more than max bytes (the kubelet's utilio.ReadAtMost). */
async function readAtMost(res: Response, max: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new Error(`response body is larger than the limit of ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The URL as logs, errors and /healthz show it: a password in its user info masked as Go's
 * url.Redacted does, so basic-auth credentials never reach a log line at any verbosity.
 */
function redactedUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (!u.password) return url;
  u.password = "xxxxx";
  return u.href;
}

export class HttpSource implements PodSource {
  readonly name = HTTPSourceName;
  readonly #opts: HttpSourceOptions;
  /** The URL for everything but the request itself. */
  readonly #shown: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;
  #data?: Buffer;
  #error?: ManifestError;
  #failures = 0;
  #lastLoudLogAt = -Infinity;

  constructor(opts: HttpSourceOptions) {
    this.#opts = opts;
    this.#shown = redactedUrl(opts.url);
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
    this.#fetch = opts.fetch ?? fetch;
  }

  get url(): string {
    return this.#shown;
  }

  /** The decode error of the body last read, if it did not decode. */
  manifestErrors(): Map<string, ManifestError> {
    return this.#error ? new Map([[this.#shown, this.#error]]) : new Map();
  }

  /** Polls every periodMs (the first at once) until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    this.#opts.log.info("Watching manifest URL", { url: this.#shown, periodMs: this.#opts.periodMs });
    await runEvery(this.#opts.clock, () => this.#opts.periodMs, signal, async () => void (await this.poll(signal)), (err) => {
      if (!isAbortError(err, signal)) this.#opts.log.error("Manifest URL poll failed", { url: this.#shown, err });
    });
  }

  /** One GET and what came of it. */
  async poll(signal?: AbortSignal): Promise<PollResult> {
    const { nodeName } = this.#opts;
    const url = this.#shown;
    let status: number;
    let body: Buffer;
    try {
      [status, body] = await this.#get(signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      return this.#failed(err);
    }
    if (status !== 200) return this.#failed(new Error(`${url}: HTTP status ${status}`));
    if (body.length === 0) {
      // Forget the last body too: unlike the kubelet, the same pods coming back after an empty
      // answer are sent again rather than mistaken for "unchanged".
      this.#data = body;
      this.#setError(undefined);
      await this.#opts.onSnapshot([]);
      this.#failed(new Error(`zero-length data received from ${url}`));
      return "sent";
    }
    if (this.#data && this.#data.equals(body)) return "unchanged";
    this.#data = body;
    let pods: Pod[];
    try {
      pods = decodeManifestList(body, { source: url, nodeName, isFile: false });
    } catch (err) {
      if (!(err instanceof ManifestError)) throw err;
      this.#setError(err);
      this.#opts.metrics.manifestErrors.inc({ source: "http" });
      return this.#failed(err);
    }
    this.#setError(undefined);
    await this.#opts.onSnapshot(pods);
    if (this.#failures > 0) this.#opts.log.info("Read pods from manifest URL again", { url, failures: this.#failures });
    this.#failures = 0;
    return "sent";
  }

  #setError(err: ManifestError | undefined): void {
    this.#error = err;
    this.#opts.metrics.rejectedManifests.set({ source: "http" }, err ? 1 : 0);
  }

  async #get(signal?: AbortSignal): Promise<[number, Buffer]> {
    const deadline = new AbortController();
    const timer = this.#opts.clock.setTimer(this.#timeoutMs, () =>
      deadline.abort(new DOMException(`no answer from ${this.#shown} within ${this.#timeoutMs} ms`, "TimeoutError")),
    );
    const headers = new Headers();
    for (const [name, values] of Object.entries(this.#opts.headers ?? {})) {
      for (const value of values) headers.append(name, value);
    }
    try {
      let res: Response;
      try {
        res = await this.#fetch(this.#opts.url, {
          headers,
          signal: signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal,
        });
      } catch (err) {
        // Normalised here, at the edge: the kubelet's `Get "<url>": dial tcp …: connect: …`.
        if (signal?.aborted) throw err;
        throw new Error(goHttpGetError(this.#opts.url, err), { cause: err });
      }
      const body = await readAtMost(res, maxConfigLength);
      return [res.status, body];
    } finally {
      timer.cancel();
    }
  }

  #failed(err: unknown): "failed" {
    this.#failures++;
    const now = this.#opts.clock.now();
    const fields = { url: this.#shown, err, failures: this.#failures, retryInMs: this.#opts.periodMs };
    if (this.#failures <= loudFailures || now - this.#lastLoudLogAt >= quietLogIntervalMs) {
      this.#lastLoudLogAt = now;
      this.#opts.log.warn("Failed to read pods from manifest URL; will retry", fields);
    } else {
      this.#opts.log.debug("Failed to read pods from manifest URL; will retry", fields, 4);
    }
    return "failed";
  }
}
