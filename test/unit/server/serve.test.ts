// Binds loopback sockets on ephemeral ports: the one place the server's own socket code runs in tests.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryLogger } from "../../../src/lib/testing.ts";
import { healthzRoutes, listen } from "../../../src/server/index.ts";
import { ServerError, type ServerHandle } from "../../../src/server/serve.ts";

const started: ServerHandle[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.stop();
});

const base = { name: "read-only", address: "127.0.0.1", log: createMemoryLogger() };
const routes = healthzRoutes({ checks: [], log: base.log });

describe("listen", () => {
  test("port 0 means off: nothing listens and stop is harmless", async () => {
    const s = await listen({ ...base, port: 0 }, routes);
    expect(s.port).toBe(0);
    await s.stop();
  });

  test("listens on the address, answers, logs where, and stops listening on stop()", async () => {
    const log = createMemoryLogger();
    const s = await listen({ ...base, log, port: 0, randomPort: true }, routes);
    expect(s.port).toBeGreaterThan(0);
    const res = await fetch(`http://127.0.0.1:${s.port}/healthz`);
    expect(await res.text()).toBe("ok");
    expect(log.lines).toContainEqual(expect.objectContaining({ msg: "serving HTTP", server: "read-only", port: s.port }));
    await s.stop();
    expect(fetch(`http://127.0.0.1:${s.port}/healthz`)).rejects.toThrow();
  });

  test("a port in use is a ServerError naming the address, port and code", async () => {
    const first = await listen({ ...base, port: 0, randomPort: true }, routes);
    started.push(first);
    let err: unknown;
    try {
      started.push(await listen({ ...base, port: first.port }, routes));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ServerError);
    expect((err as ServerError).message).toBe(`cannot listen on 127.0.0.1:${first.port}: EADDRINUSE`);
  });

  test("with a certificate and key it serves HTTPS", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bunlet-tls-"));
    try {
      const [cert, key] = [join(dir, "tls.crt"), join(dir, "tls.key")];
      const gen = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", cert]);
      expect(gen.exitCode).toBe(0);
      const log = createMemoryLogger();
      const s = await listen({ ...base, name: "kubelet", log, port: 0, randomPort: true, tls: { certFile: cert, keyFile: key } }, routes);
      started.push(s);
      const res = await fetch(`https://127.0.0.1:${s.port}/healthz`, { tls: { rejectUnauthorized: false } } as RequestInit);
      expect(await res.text()).toBe("ok");
      expect(log.lines).toContainEqual(expect.objectContaining({ msg: "serving HTTPS", server: "kubelet", port: s.port }));
      await expect(fetch(`http://127.0.0.1:${s.port}/healthz`)).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
