// Binds loopback sockets on ephemeral ports: the one place the server's own socket code runs in tests.
import { afterEach, describe, expect, test } from "bun:test";
import { createMemoryLogger } from "../../../src/lib/index.ts";
import { ServerError, startServer, type ServerHandle } from "../../../src/server/index.ts";

const started: ServerHandle[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.stop();
});

const base = { address: "127.0.0.1", checks: [], log: createMemoryLogger() };

describe("startServer", () => {
  test("port 0 means off: nothing listens and stop is harmless", async () => {
    const s = startServer({ ...base, port: 0 });
    expect(s.port).toBe(0);
    await s.stop();
  });

  test("listens on the address, answers, logs where, and stops listening on stop()", async () => {
    const log = createMemoryLogger();
    const s = startServer({ ...base, log, port: 0, randomPort: true });
    expect(s.port).toBeGreaterThan(0);
    const res = await fetch(`http://127.0.0.1:${s.port}/healthz`);
    expect(await res.text()).toBe("ok");
    expect(log.lines).toContainEqual(expect.objectContaining({ msg: "serving HTTP", server: "read-only", port: s.port }));
    await s.stop();
    expect(fetch(`http://127.0.0.1:${s.port}/healthz`)).rejects.toThrow();
  });

  test("a port in use is a ServerError naming the address, port and code", () => {
    const first = startServer({ ...base, port: 0, randomPort: true });
    started.push(first);
    let err: unknown;
    try {
      started.push(startServer({ ...base, port: first.port }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ServerError);
    expect((err as ServerError).message).toBe(`cannot listen on 127.0.0.1:${first.port}: EADDRINUSE`);
  });
});
