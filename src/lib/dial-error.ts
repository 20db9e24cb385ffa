/**
 * Connection failures in Go's wording, the kubelet's: `dial unix /run/containerd/containerd.sock:
 * connect: connection refused`, `Get "http://10.0.0.1:8080/pods": dial tcp 10.0.0.1:8080: connect:
 * connection refused`. Built from the errno code Node and Bun attach to socket errors, never from
 * their message text (Bun's fetch says "Unable to connect. Is the computer able to access the url?").
 */

/** Go's syscall.Errno texts for the errors a connect can end with. */
const ERRNO_TEXT: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "no route to host",
  ENETUNREACH: "network is unreachable",
  ECONNRESET: "connection reset by peer",
  ECONNABORTED: "software caused connection abort",
  ENOTSOCK: "socket operation on non-socket",
  EADDRNOTAVAIL: "cannot assign requested address",
  EPIPE: "broken pipe",
};

function errnoOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

/** `dial <network> <address>: connect: <errno text>`, or undefined when err has no known errno. */
export function goDialError(network: "unix" | "tcp", address: string, err: unknown): string | undefined {
  const text = ERRNO_TEXT[errnoOf(err) ?? ""];
  return text === undefined ? undefined : `dial ${network} ${address}: connect: ${text}`;
}

/**
 * A failed HTTP GET as Go's http.Client reports it: `Get "<url>": <dial error>`. The address is
 * the URL's host and port (Go prints the resolved IP). Errors without a known errno keep their
 * message.
 */
/** net/http's stripPassword: a URL's password never appears in a request error. */
function stripPassword(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = "***";
    return u.href;
  } catch {
    return url;
  }
}

export function goHttpGetError(url: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  let dial: string | undefined;
  try {
    const u = new URL(url);
    const port = u.port || (u.protocol === "https:" ? "443" : "80");
    dial = errnoOf(err) === "ENOTFOUND"
      ? `dial tcp: lookup ${u.hostname}: no such host`
      : goDialError("tcp", `${u.hostname}:${port}`, err);
  } catch {
    dial = undefined;
  }
  return `Get ${JSON.stringify(stripPassword(url))}: ${dial ?? message}`;
}
