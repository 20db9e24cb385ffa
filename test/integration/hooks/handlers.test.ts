import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import { runHandler } from "../../../src/hooks/index.ts";
import { HookError } from "../../../src/hooks/handlers.ts";

let fake: FakeCri;
let cri: CriClient;
let clock: FakeClock;
let server: ReturnType<typeof Bun.serve>;
const seen: { path: string; header: string | null }[] = [];

beforeEach(async () => {
  clock = new FakeClock();
  fake = await startFakeCri({ clock });
  cri = createCriClient({ endpoint: fake.endpoint });
  seen.length = 0;
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      seen.push({ path: url.pathname, header: req.headers.get("x-hook") });
      return new Response("no", { status: url.pathname === "/fail" ? 500 : 200 });
    },
  });
});
afterEach(async () => {
  server.stop(true);
  cri.close();
  await fake.stop();
});

const base = () => ({ cri, containerId: "unused", podIP: "127.0.0.1", clock });

describe("lifecycle hook runners", () => {
  test("httpGet goes to the pod IP with the path, a named port and headers", async () => {
    await runHandler(
      { httpGet: { path: "hook", port: "web", httpHeaders: [{ name: "X-Hook", value: "yes" }] } },
      { ...base(), ports: [{ name: "web", containerPort: server.port! }] },
    );
    expect(seen).toEqual([{ path: "/hook", header: "yes" }]);
  });

  test("an HTTP error status is still an answer: the hook succeeds, as for the kubelet", async () => {
    await runHandler({ httpGet: { path: "/fail", port: server.port! } }, base());
    expect(seen.map((s) => s.path)).toEqual(["/fail"]);
  });

  test("a connection failure is a HookError naming the URL", async () => {
    server.stop(true);
    const err = await runHandler({ httpGet: { path: "/x", port: server.port! } }, base()).catch((e) => e);
    expect(err).toBeInstanceOf(HookError);
    expect(err.message).toContain(`GET http://127.0.0.1:${server.port}/x`);
  });

  test("an unknown named port fails before any request", async () => {
    const err = await runHandler({ httpGet: { port: "nope" } }, base()).catch((e) => e);
    expect(err.message).toContain('couldn\'t find port "nope"');
    expect(seen).toEqual([]);
  });

  test("sleep waits on the clock and is cut short by the signal", async () => {
    let done = false;
    const p = runHandler({ sleep: { seconds: 5 } }, base()).then(() => (done = true));
    await clock.advance(4_999);
    expect(done).toBe(false);
    await clock.advance(1);
    await p;
    expect(done).toBe(true);

    const ac = new AbortController();
    const cut = runHandler({ sleep: { seconds: 5 } }, { ...base(), signal: ac.signal }).catch((e) => e);
    ac.abort();
    expect((await cut).message).toBe("container terminated before sleep hook finished");
  });

  test("exec runs through ExecSync; a non-zero exit is a HookError with the output", async () => {
    const { podSandboxId } = await cri.runtime.runPodSandbox({ config: { metadata: { name: "p", uid: "u", namespace: "n" } } });
    const { containerId } = await cri.runtime.createContainer({
      podSandboxId,
      config: { metadata: { name: "c" }, image: { image: "docker.io/library/busybox:1.36" } },
    });
    await cri.runtime.startContainer({ containerId });
    fake.setExecResult(["check"], { exitCode: 2, stdout: "not ready" });
    const err = await runHandler({ exec: { command: ["check"] } }, { ...base(), containerId, timeoutMs: 3_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(HookError);
    expect(err.message).toBe('Exec lifecycle hook (["check"]) failed - error: command exited with 2, message: "not ready"');
    const call = fake.calls.find((x) => x.method === "ExecSync")!.request as unknown as { timeout: bigint };
    expect(call.timeout).toBe(3n);
  });

  test("tcpSocket is not a supported lifecycle handler", async () => {
    const err = await runHandler({ tcpSocket: { port: 80 } }, base()).catch((e) => e);
    expect(err).toBeInstanceOf(HookError);
  });
});
