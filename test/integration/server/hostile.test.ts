// Hostile requests to the kubelet API and the read-only port: a Host that is no host, a TLS
// version or suite the node does not allow, a certificate from a foreign CA with anonymous auth
// on, /debug/pprof (CVE-2019-11248), and credentials that must not reach the runtime's
// streaming server.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:net";
import { createMemoryLogger } from "../../../src/lib/testing.ts";
import { healthzRoutes, listen, readOnlyRoutes } from "../../../src/server/index.ts";
import type { ServerHandle } from "../../../src/server/serve.ts";
import { heldFor, makePki, startKubeletApi, type Pki } from "./harness.ts";

let pki: Pki;
const handles: ServerHandle[] = [];
beforeAll(() => void (pki = makePki()));
afterAll(() => pki.cleanup());
afterEach(async () => {
  for (const h of handles.splice(0)) await h.stop();
});

async function kubeletApi(opts: Parameters<typeof startKubeletApi>[1] = {}) {
  const api = await startKubeletApi(pki, { anonymous: true, ...opts });
  handles.push(api.handle);
  return api;
}

async function readOnly() {
  const log = createMemoryLogger();
  const s = await listen({ name: "read-only", address: "127.0.0.1", port: 0, randomPort: true, log }, { ...healthzRoutes({ checks: [], log }), ...readOnlyRoutes({}) });
  handles.push(s);
  return { port: s.port, log };
}

/** One request as raw bytes; the status line and whether the server closed. */
async function raw(port: number, tls: boolean, request: string, cert?: Pki["client"]) {
  const r = await heldFor(port, { tls, send: request, giveUpMs: 1_000, cert });
  return { status: r.received.split("\r\n")[0], body: r.received.slice(r.received.indexOf("\r\n\r\n") + 4) };
}

const hasStack = (lines: string[]) => lines.some((l) => /\n\s+at |at <anonymous>|\.ts:\d+:\d+\)/.test(l));

describe("a malformed Host header", () => {
  test("the kubelet API answers 400 before authentication, logs no stack", async () => {
    const api = await kubeletApi({ anonymous: false });
    const r = await raw(api.port, true, "GET /pods HTTP/1.1\r\nHost: [\r\nConnection: close\r\n\r\n");
    // Host plays no part: the path is served (here: 401, no credentials), nothing crashes.
    expect(r.status).toBe("HTTP/1.1 401 Unauthorized");
    const bad = await raw(api.port, true, "GET http://[/pods HTTP/1.1\r\nHost: [\r\nConnection: close\r\n\r\n");
    expect(bad.status).toBe("HTTP/1.1 400 Bad Request");
    expect(hasStack(api.raw)).toBe(false);
  });

  test("the read-only port answers, and a bad request target is a 400, never a 500 with a stack", async () => {
    const { port, log } = await readOnly();
    const r = await raw(port, false, "GET /healthz HTTP/1.1\r\nHost: [\r\nConnection: close\r\n\r\n");
    expect(r.status).toBe("HTTP/1.1 200 OK");
    const bad = await raw(port, false, "GET http://[/healthz HTTP/1.1\r\nHost: [\r\nConnection: close\r\n\r\n");
    expect(bad.status).toBe("HTTP/1.1 400 Bad Request");
    expect(bad.body).not.toContain(" at ");
    expect(log.lines.filter((l) => l.level === "error")).toEqual([]);
  });
});

describe("TLS versions and suites (--tls-min-version, --tls-cipher-suites)", () => {
  // A real TLS client, run asynchronously: the server answers from this process.
  const sClient = async (port: number, args: string[]) => {
    const p = Bun.spawn(["openssl", "s_client", "-connect", `127.0.0.1:${port}`, ...args], { stdin: new TextEncoder().encode("Q\n"), stdout: "pipe", stderr: "pipe", timeout: 10_000 });
    const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    return { ok: code === 0 && /Cipher is (?!\(NONE\))/.test(out), cipher: /Cipher is (\S+)/.exec(out)?.[1] ?? "" };
  };

  test("under VersionTLS13 a TLS 1.2 client is refused and a TLS 1.3 client served", async () => {
    const api = await kubeletApi({ tls: { minVersion: "TLSv1.3", ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256" } });
    expect((await sClient(api.port, ["-tls1_2"])).ok).toBe(false);
    expect((await sClient(api.port, ["-tls1_3"])).ok).toBe(true);
  });

  test("only the configured TLS 1.2 suites are offered: a CBC/SHA-1 client is refused", async () => {
    const api = await kubeletApi({ tls: { minVersion: "TLSv1.2", ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256" } });
    expect((await sClient(api.port, ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA"])).ok).toBe(false);
    expect(await sClient(api.port, ["-tls1_2"])).toEqual({ ok: true, cipher: "ECDHE-ECDSA-AES128-GCM-SHA256" });
  });
});

describe("anonymous auth applies only when no credentials were presented", () => {
  test("a certificate of a foreign CA is 401 even with --anonymous-auth; none is anonymous; the CA's client is served", async () => {
    const api = await kubeletApi({ anonymous: true });
    const req = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    expect((await raw(api.port, true, req, pki.foreign)).status).toBe("HTTP/1.1 401 Unauthorized");
    expect((await raw(api.port, true, req)).status).toBe("HTTP/1.1 200 OK");
    expect((await raw(api.port, true, req, pki.client)).status).toBe("HTTP/1.1 200 OK");
  });
});

describe("CVE-2019-11248: /debug/pprof is served on no port", () => {
  test("404 on the healthz and read-only ports, and on the kubelet API to an allowed user", async () => {
    const { port } = await readOnly();
    const log = createMemoryLogger();
    const healthz = await listen({ name: "healthz", address: "127.0.0.1", port: 0, randomPort: true, log }, healthzRoutes({ checks: [], log }));
    handles.push(healthz);
    const api = await kubeletApi();
    for (const path of ["/debug/pprof/", "/debug/pprof/profile?seconds=1", "/debug/pprof/heap", "/debug/flags/v"]) {
      const req = `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
      expect((await raw(healthz.port, false, req)).status).toBe("HTTP/1.1 404 Not Found");
      expect((await raw(port, false, req)).status).toBe("HTTP/1.1 404 Not Found");
      expect((await raw(api.port, true, req, pki.client)).status).toBe("HTTP/1.1 404 Not Found");
    }
  });
});

describe("the runtime's streaming server never sees the client's credentials", () => {
  let streaming: Server;
  let seen: string[] = [];
  beforeAll(async () => {
    streaming = createServer((s) => {
      let head = "";
      s.on("data", (d) => {
        head += d.toString();
        if (head.includes("\r\n\r\n")) {
          seen.push(head);
          s.end("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n");
        }
      });
    });
    await new Promise<void>((r) => streaming.listen(0, "127.0.0.1", () => r()));
  });
  afterAll(() => void streaming.close());

  test("Authorization, Proxy-Authorization and Cookie are left out of the proxied upgrade", async () => {
    seen = [];
    const port = (streaming.address() as { port: number }).port;
    const api = await kubeletApi({ anonymous: true, streamingUrl: `http://127.0.0.1:${port}/exec/token123` });
    const req =
      "POST /exec/default/web/main?command=sh&stdout=1 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n" +
      "Authorization: Bearer secret-token\r\nProxy-Authorization: Basic c2VjcmV0\r\nCookie: session=secret\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n";
    const r = await raw(api.port, true, req, pki.client);
    expect(r.status).toBe("HTTP/1.1 101 Switching Protocols");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toStartWith("POST /exec/token123 HTTP/1.1\r\n");
    expect(seen[0]).toContain("X-Stream-Protocol-Version: v4.channel.k8s.io\r\n");
    expect(seen[0]).not.toContain("secret");
  });
});
