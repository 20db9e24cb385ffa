/**
 * /exec, /attach and /portForward: the kubelet asks the runtime (CRI Exec, Attach, PortForward)
 * for a URL on the runtime's streaming server, which only the node can reach, and proxies the
 * client's upgraded connection to it byte for byte (the kubelet's UpgradeAwareHandler, no
 * redirect since v1.20): the request line and headers are sent on with the runtime's path, the
 * runtime's answer (101 and then the SPDY/3.1 or WebSocket frames, or an error) comes back as
 * it is. bunlet reads none of the stream, so every protocol the runtime speaks passes. The
 * client's credentials (Authorization and the like) stay with bunlet: the runtime's server
 * authenticates nobody, and a token sent on would reach whatever listens there. Both directions
 * are piped, so a side that stops reading stops the other side's reads (each socket holds at
 * most its high-water mark) instead of bunlet buffering the stream.
 */
import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Pod } from "../api/index.ts";
import { allContainerStatuses } from "../container/index.ts";
import { labels, PodSandboxState, type CriClient } from "../cri/index.ts";
import type { Logger } from "../lib/index.ts";
import { HttpError } from "./container-logs.ts";

export type StreamKind = "exec" | "attach" | "portForward";

export interface StreamingDeps {
  pod(namespace: string, name: string): Pod | undefined;
  cri: CriClient;
  log: Logger;
}

/** remotecommand's NewOptions: which streams, and a TTY. */
export function streamOptions(query: URLSearchParams): { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean } {
  const flag = (name: string) => {
    const v = query.get(name);
    return v === "1" || v === "true";
  };
  const tty = flag("tty");
  const stdin = flag("input") || flag("stdin");
  const stdout = flag("output") || flag("stdout");
  // With a TTY, stderr is merged into stdout.
  const stderr = !tty && (flag("error") || flag("stderr"));
  if (!stdin && !stdout && !stderr) throw new HttpError(400, "you must specify at least 1 of stdin, stdout, stderr");
  return { stdin, stdout, stderr, tty };
}

function runningContainerId(pod: Pod, containerName: string): string {
  const status = allContainerStatuses(pod).find((c) => c.name === containerName);
  const id = status?.state?.running ? status.containerID : undefined;
  if (!id) throw new HttpError(500, `container not found ("${containerName}")`);
  return id.includes("://") ? id.slice(id.indexOf("://") + 3) : id;
}

/** The runtime's streaming URL for the request; an HttpError when the pod or container is not there. */
export async function streamingUrl(deps: StreamingDeps, kind: StreamKind, path: string, query: URLSearchParams, signal: AbortSignal): Promise<URL> {
  const parts = path.split("/").slice(2);
  const [namespace, podName] = parts;
  if (!namespace || !podName) throw new HttpError(404, "404 page not found");
  const pod = deps.pod(namespace, podName);
  if (!pod) throw new HttpError(404, "pod does not exist");
  if (kind === "portForward") {
    const uid = parts[2];
    if (uid && pod.metadata?.uid !== uid) throw new HttpError(404, "pod not found");
    const res = await deps.cri.runtime.listPodSandbox(
      { filter: { labelSelector: { [labels.KubernetesPodUIDLabel]: pod.metadata?.uid ?? "" }, state: { state: PodSandboxState.SANDBOX_READY } } },
      { signal },
    );
    const sandbox = [...res.items].sort((a, b) => Number(b.createdAt - a.createdAt))[0];
    if (!sandbox) throw new HttpError(500, `pod not found ("${podName}")`);
    const ports = query.getAll("ports").flatMap((p) => p.split(",")).filter((p) => p !== "").map(Number);
    const url = (await deps.cri.runtime.portForward({ podSandboxId: sandbox.id, port: ports }, { signal })).url;
    return new URL(url);
  }
  // /exec/{ns}/{pod}/{container} or /exec/{ns}/{pod}/{uid}/{container}
  const containerName = parts.length >= 4 ? parts[3] : parts[2];
  const uid = parts.length >= 4 ? parts[2] : undefined;
  if (!containerName) throw new HttpError(404, "404 page not found");
  if (uid && pod.metadata?.uid !== uid) throw new HttpError(404, "pod does not exist");
  const opts = streamOptions(query);
  const containerId = runningContainerId(pod, containerName);
  const url =
    kind === "exec"
      ? (await deps.cri.runtime.exec({ containerId, cmd: query.getAll("command"), ...opts }, { signal })).url
      : (await deps.cri.runtime.attach({ containerId, ...opts }, { signal })).url;
  return new URL(url);
}

/**
 * Sends the client's upgrade request to `target` and splices the two connections. The request
 * keeps its method, headers and query; only the path and Host change, and `dropHeaders` (lower
 * case) are left out. `head` is what the client sent after its headers.
 */
export function proxyUpgrade(req: IncomingMessage, client: Duplex, head: Buffer, target: URL, log: Logger, dropHeaders: ReadonlySet<string>): void {
  const port = Number(target.port || (target.protocol === "https:" ? 443 : 80));
  const upstream: Socket =
    target.protocol === "https:"
      ? // The runtime's streaming server is on the node; its certificate is its own.
        tlsConnect({ host: target.hostname, port, rejectUnauthorized: false })
      : netConnect({ host: target.hostname, port });
  const lines = [`${req.method} ${target.pathname}${target.search || ""} HTTP/1.1`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    const lower = name.toLowerCase();
    if (lower === "host" || dropHeaders.has(lower)) continue;
    lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
  }
  lines.push(`Host: ${target.host}`);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  upstream.once(target.protocol === "https:" ? "secureConnect" : "connect", () => {
    upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on("error", (err) => {
    log.error("Error while proxying request", { err, url: `${target.protocol}//${target.host}` });
    if (client.writable && upstream.bytesRead === 0) {
      const body = `${err.message}\n`;
      client.end(`HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    } else close();
  });
  client.on("error", close);
  upstream.on("close", () => client.end());
  client.on("close", () => upstream.destroy());
}
