/**
 * The httpGet probe (pkg/probe/http): GET scheme://host:port/path with the probe's headers, a
 * `kube-probe` User-Agent and `Accept: *\/*` unless the probe sets them, no keep-alive and no
 * certificate check. 200 ≤ code < 400 succeeds. Redirects are followed (at most 10) while they
 * stay on the same host; a redirect to another host is not followed and counts as a success with
 * a warning. The body is read up to 10 KiB; the timeout covers the whole exchange.
 */
import type { Clock } from "../lib/index.ts";
import { anySignal } from "../lib/index.ts";
import { cappedText, MAX_PROBE_OUTPUT_BYTES, PROBE_USER_AGENT, type ProbeOutcome } from "./probe-types.ts";

const MAX_REDIRECTS = 10;

export interface HttpProbeRequest {
  scheme: "HTTP" | "HTTPS";
  host: string;
  port: number;
  path: string;
  headers: { name: string; value: string }[];
  timeoutMs: number;
  clock: Clock;
  signal?: AbortSignal;
}

function probeURL(req: Pick<HttpProbeRequest, "scheme" | "host" | "port" | "path">): string {
  const host = req.host.includes(":") && !req.host.startsWith("[") ? `[${req.host}]` : req.host;
  const path = req.path.startsWith("/") ? req.path : `/${req.path}`;
  return `${req.scheme.toLowerCase()}://${host}:${req.port}${path}`;
}

function probeHeaders(list: { name: string; value: string }[]): Headers {
  const headers = new Headers();
  for (const h of list) headers.append(h.name, h.value);
  if (!headers.has("User-Agent")) headers.set("User-Agent", PROBE_USER_AGENT);
  if (!headers.has("Accept")) headers.set("Accept", "*/*");
  return headers;
}

export async function probeHttp(req: HttpProbeRequest): Promise<ProbeOutcome> {
  const first = probeURL(req);
  const headers = probeHeaders(req.headers);
  const timeout = new AbortController();
  const timer = req.clock.setTimer(req.timeoutMs, () => timeout.abort(new Error(`timeout after ${req.timeoutMs / 1000}s`)));
  const signal = anySignal(req.signal, timeout.signal);
  let url = first;
  try {
    for (let hops = 0; ; hops++) {
      // Bun's fetch takes `tls` and `keepalive: false` (no connection reuse, as the kubelet's prober).
      const init = { headers, signal, redirect: "manual", keepalive: false, tls: { rejectUnauthorized: false } };
      const res = await fetch(url, init as RequestInit);
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location) {
        const next = new URL(location, url);
        if (next.hostname === new URL(first).hostname) {
          await res.body?.cancel();
          if (hops + 1 >= MAX_REDIRECTS) return { result: "Failure", output: `Get ${JSON.stringify(next.href)}: stopped after ${MAX_REDIRECTS} redirects` };
          url = next.href;
          continue;
        }
      }
      const body = await readCapped(res);
      if (res.status >= 200 && res.status < 400) {
        if (res.status >= 300) return { result: "Warning", output: `Probe terminated redirects, Response body: ${body}` };
        return { result: "Success", output: body };
      }
      return { result: "Failure", output: `HTTP probe failed with statuscode: ${res.status}` };
    }
  } catch (err) {
    const cause = timeout.signal.aborted ? (timeout.signal.reason as Error) : (err as Error);
    if (req.signal?.aborted) throw req.signal.reason;
    return { result: "Failure", output: `Get ${JSON.stringify(url)}: ${cause.message}` };
  } finally {
    timer.cancel();
  }
}

/** The body as text, at most 10 KiB of it; the rest is not read. */
async function readCapped(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_PROBE_OUTPUT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    // Only releases the connection; the body read so far is the probe's answer either way.
    await reader.cancel().catch(() => undefined);
  }
  return cappedText(chunks);
}
