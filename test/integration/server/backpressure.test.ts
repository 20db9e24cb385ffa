// A client that stops reading must not make bunlet buffer what it does not read: a followed log
// of a file growing by ~100 MB, to a client that is stopped (SIGSTOP), keeps the serving
// process's RSS bounded; an exec stream from a runtime that floods is read only as fast as the
// stopped client takes it.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import type { ServerHandle } from "../../../src/server/serve.ts";
import { makePki, startKubeletApi, type Pki } from "./harness.ts";

const BUN = join(import.meta.dir, "../../../node_modules/.bin/bun");
let pki: Pki;
const children: ReturnType<typeof Bun.spawn>[] = [];
const handles: ServerHandle[] = [];
beforeAll(() => void (pki = makePki()));
afterAll(() => pki.cleanup());
afterEach(async () => {
  for (const c of children.splice(0)) {
    c.kill("SIGKILL");
    await c.exited;
  }
  for (const h of handles.splice(0)) await h.stop();
});

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

/** A client that sends its request, reads a little, then is stopped: the kernel buffers fill and stay full. */
async function stoppedClient(args: string[]): Promise<void> {
  const c = Bun.spawn(args, { stdout: "ignore", stderr: "ignore" });
  children.push(c);
  await Bun.sleep(300);
  process.kill(c.pid, "SIGSTOP");
}

/** `mib` MiB of distinct CRI log lines appended to `path`, 1 MiB at a time. */
async function growLog(path: string, mib: number): Promise<void> {
  const line = (i: number, j: number) => `2026-01-01T00:00:00.000000000Z stdout F ${String(i).padStart(6, "0")}-${String(j).padStart(5, "0")} ${"x".repeat(100)}\n`;
  for (let i = 0; i < mib; i++) {
    let chunk = "";
    for (let j = 0; chunk.length < 1 << 20; j++) chunk += line(i, j);
    appendFileSync(path, chunk);
    if (i % 8 === 0) await Bun.sleep(1);
  }
}

describe("backpressure", () => {
  test("a stopped `logs -f` client keeps the server's RSS bounded while the log grows by 120 MiB", async () => {
    const logPath = join(pki.dir, "fast.log");
    writeFileSync(logPath, "2026-01-01T00:00:00.000000000Z stdout F start\n");
    const server = Bun.spawn([BUN, join(import.meta.dir, "serve-kubelet-api.ts"), logPath, pki.dir], { stdout: "pipe", stderr: "ignore" });
    children.push(server);
    const reader = (server.stdout as ReadableStream<Uint8Array>).getReader();
    const port = Number(new TextDecoder().decode((await reader.read()).value).trim());
    await stoppedClient(["curl", "-sk", "-N", "-o", "/dev/null", `https://127.0.0.1:${port}/containerLogs/default/web/main?follow=true`]);
    const before = rssMiB(server.pid);
    await growLog(logPath, 120);
    // Give the server time to read what it would read.
    await Bun.sleep(1_500);
    const after = rssMiB(server.pid);
    expect(after - before).toBeLessThan(40);
  });

  test("an exec stream from a flooding runtime is read only as fast as the stopped client takes it", async () => {
    let sent = 0;
    let upstream: Socket | undefined;
    const flood: Server = createServer((s) => {
      upstream = s;
      s.once("data", () => {
        s.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n");
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = () => {
          while (!s.destroyed && sent < 1 << 30) {
            sent += chunk.length;
            if (!s.write(chunk)) return void s.once("drain", pump);
          }
        };
        pump();
      });
      s.on("error", () => {});
    });
    await new Promise<void>((r) => flood.listen(0, "127.0.0.1", () => r()));
    try {
      const streamingUrl = `http://127.0.0.1:${(flood.address() as { port: number }).port}/exec/x`;
      const api = await startKubeletApi(pki, { anonymous: true, streamingUrl });
      handles.push(api.handle);
      const request = "POST /exec/default/web/main?command=sh&stdout=1 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n";
      const client = `const s = require("node:tls").connect({ port: ${api.port}, host: "127.0.0.1", rejectUnauthorized: false }, () => s.write(${JSON.stringify(request)})); s.on("data", () => {});`;
      await stoppedClient([BUN, "-e", client]);
      const atStop = sent;
      await Bun.sleep(1_500);
      const first = sent;
      await Bun.sleep(1_000);
      // Stalled: nothing more taken from the runtime, and what was taken since the client stopped
      // is bounded by the sockets' buffers (four auto-tuned TCP buffers and TLS's, 34 MiB seen
      // with both cores busy), not by what the runtime can write (900 MiB without backpressure).
      expect(sent - first).toBeLessThan(1 << 20);
      expect(sent - atStop).toBeLessThan(128 << 20);
    } finally {
      upstream?.destroy();
      flood.close();
    }
  });
});
