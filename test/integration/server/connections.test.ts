// Slow and idle clients on the kubelet API and the read-only port: every kind of held connection
// is closed by its timer (shortened here; the defaults are checked as numbers), streams are not,
// unauthenticated connections are capped, and oversized headers are refused.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createMemoryLogger } from "../../../src/lib/testing.ts";
import { healthzRoutes, listen } from "../../../src/server/index.ts";
import {
  defaultConnectionLimits,
  defaultServerTimeouts,
  DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS,
  MAX_HEADER_BYTES,
  type ConnectionLimits,
} from "../../../src/server/connections.ts";
import type { ServerHandle } from "../../../src/server/serve.ts";
import { heldFor, makePki, startKubeletApi, type Pki } from "./harness.ts";

const short: ConnectionLimits = { timeouts: { tlsHandshakeMs: 300, readHeaderMs: 300, idleMs: 400, requestMs: 300 }, maxUnauthenticated: 5 };
let pki: Pki;
const handles: ServerHandle[] = [];
beforeAll(() => void (pki = makePki()));
afterAll(() => pki.cleanup());
afterEach(async () => {
  for (const h of handles.splice(0)) await h.stop();
});

test("the defaults: handshake 10s, headers 32s, idle 90s (the kubelet's), request 4h (the kubelet's), 1 MiB of headers, 128 unauthenticated connections", () => {
  expect(defaultServerTimeouts).toEqual({ tlsHandshakeMs: 10_000, readHeaderMs: 32_000, idleMs: 90_000, requestMs: 14_400_000 });
  expect(MAX_HEADER_BYTES).toBe(1_048_576);
  expect(DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS).toBe(128);
  expect(defaultConnectionLimits).toEqual({ timeouts: defaultServerTimeouts, maxUnauthenticated: 128 });
});

describe("the kubelet API closes held connections", () => {
  const start = async (limits = short) => {
    const api = await startKubeletApi(pki, { limits, anonymous: true });
    handles.push(api.handle);
    return api;
  };

  test("one that never starts its TLS handshake, after tlsHandshakeMs", async () => {
    const { port } = await start();
    const r = await heldFor(port, { tls: false, giveUpMs: 3_000 });
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(1_500);
  });

  test("one whose request headers never end, after readHeaderMs", async () => {
    const { port } = await start();
    const r = await heldFor(port, { tls: true, send: "GET /healthz HTTP/1.1\r\nHost: x\r\n", giveUpMs: 3_000 });
    expect(r.closed).toBe(true);
    expect(r.received).toBe("");
    expect(r.ms).toBeLessThan(1_500);
  });

  test("an idle keep-alive connection, after idleMs", async () => {
    const { port } = await start();
    const r = await heldFor(port, { tls: true, send: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", giveUpMs: 3_000 });
    expect(r.received).toStartWith("HTTP/1.1 200");
    expect(r.closed).toBe(true);
    expect(r.ms).toBeGreaterThanOrEqual(350);
    expect(r.ms).toBeLessThan(1_500);
  });

  test("a followed log outlives every timer: streams are not cut", async () => {
    const logPath = join(pki.dir, "follow.log");
    writeFileSync(logPath, "2026-01-01T00:00:00.000000000Z stdout F first\n");
    const api = await startKubeletApi(pki, { limits: short, anonymous: true, logPath });
    handles.push(api.handle);
    const writer = setInterval(() => appendFileSync(logPath, "2026-01-01T00:00:01.000000000Z stdout F more\n"), 100);
    try {
      const r = await heldFor(api.port, { tls: true, send: "GET /containerLogs/default/web/main?follow=true HTTP/1.1\r\nHost: x\r\n\r\n", giveUpMs: 1_500 });
      expect(r.received).toStartWith("HTTP/1.1 200");
      expect(r.received).toContain("first\n");
      expect(r.closed).toBe(false);
    } finally {
      clearInterval(writer);
    }
  });

  test("past maxUnauthenticated, a new connection is closed at once; an authenticated client's does not count", async () => {
    const { port } = await start({ ...short, timeouts: { ...short.timeouts, tlsHandshakeMs: 5_000, readHeaderMs: 5_000, idleMs: 5_000 } });
    // One authenticated connection first, kept alive.
    const authed = heldFor(port, { tls: true, cert: pki.client, send: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", giveUpMs: 2_500 });
    await Bun.sleep(200);
    const held = Array.from({ length: 5 }, () => heldFor(port, { tls: false, giveUpMs: 2_500 }));
    await Bun.sleep(200);
    const refused = await heldFor(port, { tls: false, giveUpMs: 2_000 });
    expect(refused.closed).toBe(true);
    expect(refused.ms).toBeLessThan(500);
    for (const r of await Promise.all(held)) expect(r.closed).toBe(false);
    const a = await authed;
    expect(a.received).toStartWith("HTTP/1.1 200");
    expect(a.closed).toBe(false);
  });

  test("request headers up to 1 MiB are served (the kubelet's MaxHeaderBytes); over it a 431 and the connection is closed", async () => {
    const { port } = await start();
    const large = `GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: ${"a".repeat(512 * 1024)}\r\n\r\n`;
    expect((await heldFor(port, { tls: true, send: large, giveUpMs: 3_000 })).received).toStartWith("HTTP/1.1 200");
    const big = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(MAX_HEADER_BYTES + 10)}\r\n\r\n`;
    const r = await heldFor(port, { tls: true, send: big, giveUpMs: 3_000 });
    expect(r.received).toStartWith("HTTP/1.1 431");
    expect(r.closed).toBe(true);
  });
});

describe("the read-only and healthz ports close held connections too", () => {
  const start = async () => {
    const log = createMemoryLogger();
    const s = await listen({ name: "healthz", address: "127.0.0.1", port: 0, randomPort: true, limits: short, log }, healthzRoutes({ checks: [], log }));
    handles.push(s);
    return s.port;
  };

  test("headers that never end, after readHeaderMs", async () => {
    const r = await heldFor(await start(), { tls: false, send: "GET /healthz HTTP/1.1\r\nHost: x\r\n", giveUpMs: 3_000 });
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(1_500);
  });

  test("an idle keep-alive connection, after idleMs", async () => {
    const r = await heldFor(await start(), { tls: false, send: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", giveUpMs: 3_000 });
    expect(r.received).toStartWith("HTTP/1.1 200");
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(1_500);
  });

  test("past maxUnauthenticated, a new connection is closed at once", async () => {
    const port = await start();
    const held = Array.from({ length: 5 }, () => heldFor(port, { tls: false, send: "GET / HTTP/1.1\r\n", giveUpMs: 250 }));
    await Bun.sleep(100);
    const refused = await heldFor(port, { tls: false, giveUpMs: 250 });
    expect(refused.closed).toBe(true);
    expect(refused.ms).toBeLessThan(150);
    await Promise.all(held);
  });
});
