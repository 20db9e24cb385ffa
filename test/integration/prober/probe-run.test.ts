// runProbe against real local endpoints: the fake CRI for exec, and HTTP, TCP and gRPC servers
// on 127.0.0.1. Timeouts run on a FakeClock.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type Server as NetServer } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createHttp2Server, type Http2Server, type ServerHttp2Stream } from "node:http2";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { Container, Probe } from "../../../src/api/index.ts";
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { PROBE_USER_AGENT, ProbeError, type ProbeOutcome } from "../../../src/prober/probe-types.ts";
import { runProbe } from "../../../src/prober/probe-run.ts";
import { containerConfig, sandboxConfig, startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import { waitFor } from "../../harness/wait.ts";

const container: Container = { name: "app", image: "busybox", ports: [{ name: "http", containerPort: 0 }] };

let fake: FakeCri;
let cri: CriClient;
let containerId: string;
let clock: FakeClock;
let web: ReturnType<typeof Bun.serve>;
let webPort: number;
/** Path and headers of each request the web server got (copied: a Request does not outlive its response). */
const seen: { path: string; headers: Headers }[] = [];

function run(probe: Probe, over: { podIP?: string; container?: Container; signal?: AbortSignal } = {}): Promise<ProbeOutcome> {
  return runProbe(probe, { cri, containerId, container: over.container ?? container, podIP: over.podIP ?? "127.0.0.1", clock, signal: over.signal });
}

beforeAll(async () => {
  clock = new FakeClock();
  fake = await startFakeCri({ clock });
  cri = createCriClient({ endpoint: fake.endpoint });
  const sb = await cri.runtime.runPodSandbox({ config: sandboxConfig("web") });
  const created = await cri.runtime.createContainer({ podSandboxId: sb.podSandboxId, config: containerConfig("app", "docker.io/library/busybox:1.36", ["sleep", "1d"]), sandboxConfig: sandboxConfig("web") });
  containerId = created.containerId;
  await cri.runtime.startContainer({ containerId });

  web = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      seen.push({ path: url.pathname, headers: new Headers(req.headers) });
      switch (url.pathname) {
        case "/ok":
          return new Response("fine");
        case "/big":
          return new Response("x".repeat(20 * 1024));
        case "/fail":
          return new Response("broken", { status: 500 });
        case "/moved":
          return new Response(null, { status: 302, headers: { location: "/ok" } });
        case "/away":
          return new Response("gone elsewhere", { status: 302, headers: { location: `http://localhost:${url.port}/ok` } });
        case "/loop":
          return new Response(null, { status: 302, headers: { location: "/loop" } });
        case "/hang":
          return new Promise<Response>(() => undefined);
        default:
          return new Response("not here", { status: 404 });
      }
    },
  });
  webPort = web.port!;
  container.ports![0]!.containerPort = webPort;
});

afterAll(async () => {
  web.stop(true);
  cri.close();
  await fake.stop();
});

describe("exec", () => {
  test("exit code 0 succeeds with the command's output", async () => {
    fake.setExecResult(["check-ok"], { exitCode: 0, stdout: "all good\n" });
    expect(await run({ exec: { command: ["check-ok"] } })).toEqual({ result: "Success", output: "all good\n" });
  });

  test("a non-zero exit fails with stdout and stderr as output", async () => {
    fake.setExecResult(["check-bad"], { exitCode: 3, stdout: "out ", stderr: "err" });
    expect(await run({ exec: { command: ["check-bad"] } })).toEqual({ result: "Failure", output: "out err" });
  });

  test("the output is capped at 10 KiB", async () => {
    fake.setExecResult(["check-loud"], { exitCode: 1, stdout: "y".repeat(30_000) });
    const out = await run({ exec: { command: ["check-loud"] } });
    expect(out.output.length).toBe(10 * 1024);
  });

  test("a command that outlives timeoutSeconds is a failure, with the timeout passed to ExecSync", async () => {
    fake.setExecResult(["check-slow"], { exitCode: 0, delayMs: 5_000 });
    const pending = run({ exec: { command: ["check-slow"] }, timeoutSeconds: 2 });
    await fake.whenCalled("ExecSync", fake.calls.filter((c) => c.method === "ExecSync").length + 1);
    await clock.advance(2_000);
    expect(await pending).toEqual({ result: "Failure", output: `command ["check-slow"] timed out` });
    const call = fake.calls.findLast((c) => c.method === "ExecSync")!.request as unknown as { timeout: bigint; cmd: string[] };
    expect(call.timeout).toBe(2n);
  });

  test("exec into a container the runtime does not know is an error, not a result", async () => {
    const err = await runProbe({ exec: { command: ["true"] } }, { cri, containerId: "nope", container, podIP: "", clock }).catch((e) => e);
    expect(err).toBeInstanceOf(ProbeError);
    expect(err.message).toContain("nope");
  });
});

describe("httpGet", () => {
  const get = (path: string, port: number | string = webPort, extra: Partial<NonNullable<Probe["httpGet"]>> = {}) => run({ httpGet: { path, port, ...extra } });

  test("a 200 succeeds with the body as output", async () => {
    expect(await get("/ok")).toEqual({ result: "Success", output: "fine" });
  });

  test("a 500 or a 404 fails with the status code", async () => {
    expect(await get("/fail")).toEqual({ result: "Failure", output: "HTTP probe failed with statuscode: 500" });
    expect((await get("/nothing")).result).toBe("Failure");
  });

  test("the kubelet's User-Agent and Accept are sent unless the probe sets them; probe headers are sent", async () => {
    await get("/ok", webPort, { httpHeaders: [{ name: "X-Probe", value: "yes" }] });
    let req = seen.at(-1)!;
    expect(req.headers.get("user-agent")).toBe(PROBE_USER_AGENT);
    expect(req.headers.get("accept")).toBe("*/*");
    expect(req.headers.get("x-probe")).toBe("yes");
    await get("/ok", webPort, { httpHeaders: [{ name: "User-Agent", value: "mine" }, { name: "Accept", value: "text/plain" }] });
    req = seen.at(-1)!;
    expect(req.headers.get("user-agent")).toBe("mine");
    expect(req.headers.get("accept")).toBe("text/plain");
  });

  test("a named port resolves to the container's port, a missing name is an error", async () => {
    expect((await get("/ok", "http")).result).toBe("Success");
    expect(await get("/ok", "metrics").catch((e) => e)).toBeInstanceOf(ProbeError);
  });

  test("the host defaults to the pod IP and an explicit host wins", async () => {
    expect((await run({ httpGet: { path: "/ok", port: webPort } }, { podIP: "127.0.0.1" })).result).toBe("Success");
    expect((await run({ httpGet: { path: "/ok", port: webPort, host: "127.0.0.1" } }, { podIP: "" })).result).toBe("Success");
  });

  test("a redirect on the same host is followed", async () => {
    expect(await get("/moved")).toEqual({ result: "Success", output: "fine" });
  });

  test("a redirect to another host is not followed and counts as success with a warning", async () => {
    const out = await get("/away");
    expect(out.result).toBe("Warning");
    expect(out.output).toBe("Probe terminated redirects, Response body: gone elsewhere");
  });

  test("more than 10 redirects fail", async () => {
    const out = await get("/loop");
    expect(out.result).toBe("Failure");
    expect(out.output).toContain("stopped after 10 redirects");
  });

  test("the body read is capped at 10 KiB", async () => {
    const out = await get("/big");
    expect(out.result).toBe("Success");
    expect(out.output.length).toBe(10 * 1024);
  });

  test("a refused connection fails", async () => {
    const closed = await closedPort();
    const out = await get("/ok", closed);
    expect(out.result).toBe("Failure");
    expect(out.output).toContain(`127.0.0.1:${closed}/ok`);
  });

  test("a server that does not answer within timeoutSeconds fails", async () => {
    const pending = get("/hang");
    await waitFor("the /hang request to arrive", () => seen.some((r) => r.path === "/hang"), { intervalMs: 1 });
    await clock.advance(1_000);
    expect(await pending).toEqual({ result: "Failure", output: `Get "http://127.0.0.1:${webPort}/hang": timeout after 1s` });
  });

  test("HTTPS does not verify the certificate", async () => {
    const dir = mkdtempSync(join(tmpdir(), "probe-tls-"));
    const cert = join(dir, "cert.pem");
    const key = join(dir, "key.pem");
    const gen = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=probe-test", "-keyout", key, "-out", cert]);
    expect(gen.exitCode).toBe(0);
    const tls = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") }, fetch: () => new Response("secure") });
    try {
      expect(await run({ httpGet: { path: "/", port: tls.port!, scheme: "HTTPS" } })).toEqual({ result: "Success", output: "secure" });
    } finally {
      tls.stop(true);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("tcpSocket", () => {
  let server: NetServer;
  let port: number;
  beforeAll(async () => {
    server = createServer((s) => s.end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => void server.close());

  test("a listening port succeeds", async () => {
    expect(await run({ tcpSocket: { port } })).toEqual({ result: "Success", output: "" });
  });

  test("a closed port fails naming the address", async () => {
    const closed = await closedPort();
    const out = await run({ tcpSocket: { port: closed } });
    expect(out.result).toBe("Failure");
    expect(out.output).toStartWith(`dial tcp 127.0.0.1:${closed}: `);
  });

  test("a connection that does not open within timeoutSeconds fails", async () => {
    const pending = run({ tcpSocket: { port }, timeoutSeconds: 3 });
    await clock.advance(3_000); // before the event loop could deliver the connect
    expect(await pending).toEqual({ result: "Failure", output: `dial tcp 127.0.0.1:${port}: i/o timeout after 3s` });
  });

  test("an aborted probe rejects with the abort reason", async () => {
    const ctl = new AbortController();
    const pending = run({ tcpSocket: { port } }, { signal: ctl.signal });
    ctl.abort(new Error("worker stopped"));
    expect((await pending.catch((e) => e)).message).toBe("worker stopped");
  });
});

describe("grpc", () => {
  // A minimal gRPC server on node:http2 (grpc-js's server mishandles empty request messages
  // under Bun): length-prefixed messages in, a HealthCheckResponse or an error status out.
  const statuses: Record<string, number> = { "": 1, db: 2 };
  const agents: string[] = [];
  let server: Http2Server;
  let port: number;
  const respond = (stream: ServerHttp2Stream, grpcStatus: number, message?: Uint8Array, detail = "") => {
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(grpcStatus), ...(detail && { "grpc-message": detail }) }));
    if (!message) return stream.end();
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1);
    frame.set(message, 5);
    stream.end(frame);
  };
  beforeAll(async () => {
    server = createHttp2Server();
    server.on("stream", (stream: ServerHttp2Stream, headers) => {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        agents.push(String(headers["user-agent"]));
        if (headers[":path"] !== "/grpc.health.v1.Health/Check") return respond(stream, GrpcStatus.UNIMPLEMENTED, undefined, "unknown service grpc.health.v1.Health");
        const body = Buffer.concat(chunks);
        const r = new BinaryReader(body.subarray(5, 5 + body.readUInt32BE(1)));
        let service = "";
        while (r.pos < r.len) {
          const [f, t] = r.tag();
          if (f === 1) service = r.string();
          else r.skip(t, f);
        }
        const status = statuses[service];
        if (status === undefined) return respond(stream, GrpcStatus.NOT_FOUND, undefined, "unknown service");
        respond(stream, GrpcStatus.OK, new BinaryWriter().tag(1, WireType.Varint).int32(status).finish());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => void server.close());

  test("SERVING succeeds, with the kubelet's user agent", async () => {
    expect(await run({ grpc: { port } })).toEqual({ result: "Success", output: "" });
    expect(agents.at(-1)).toStartWith(PROBE_USER_AGENT);
  });

  test("another serving status fails naming it; the service name is sent", async () => {
    expect(await run({ grpc: { port, service: "db" } })).toEqual({ result: "Failure", output: `service unhealthy (responded with "NOT_SERVING")` });
  });

  test("an RPC error fails with the code", async () => {
    const out = await run({ grpc: { port, service: "cache" } });
    expect(out).toEqual({ result: "Failure", output: "error: health rpc probe failed: NOT_FOUND: unknown service" });
  });

  test("a server without the health service fails as not implementing it", async () => {
    const bare = createHttp2Server();
    bare.on("stream", (stream: ServerHttp2Stream) => respond(stream, GrpcStatus.UNIMPLEMENTED, undefined, "unknown service grpc.health.v1.Health"));
    await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
    try {
      const failed = await run({ grpc: { port: (bare.address() as { port: number }).port } });
      expect(failed).toEqual({ result: "Failure", output: "this server does not implement the grpc health protocol (grpc.health.v1.Health): unknown service grpc.health.v1.Health" });
    } finally {
      bare.close();
    }
  });

  test("a refused connection fails", async () => {
    const closed = await closedPort();
    const out = await run({ grpc: { port: closed } });
    expect(out.result).toBe("Failure");
    expect(out.output).toStartWith(`error: failed to connect service at "127.0.0.1:${closed}"`);
  });
});

/** A port nothing listens on: bound, noted, released. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
