/**
 * Every request has a deadline: an apiserver that accepts the connection and then says nothing
 * (SIGSTOP, an overloaded server, a link that drops packets) fails the request with ClientTimeout
 * naming the server, instead of holding the caller forever. Virtual time moves the deadline; the
 * servers are real sockets.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createServer, type Server, type Socket } from "node:net";
import { ApiError, createApiClient, createReflector, isUnreachable, ObjectStore, type ApiClientConfig } from "../../../src/apiclient/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";

const DEFAULT_DEADLINE_MS = 45_000;

let servers: Server[] = [];
let sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets) s.destroy();
  for (const s of servers) s.close();
  servers = [];
  sockets = [];
});

/** A TCP server that accepts, reads the request, and answers with `reply` (nothing at all when undefined), then stays silent. */
async function silentServer(reply?: string): Promise<{ server: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.once("data", () => {
      requests++;
      if (reply !== undefined) socket.write(reply);
    });
    socket.on("error", () => {});
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return { server: `http://127.0.0.1:${address.port}`, requests: () => requests };
}

function config(server: string): ApiClientConfig {
  return { server, insecureSkipTLSVerify: false, credentials: { kind: "none" }, source: { file: "test", context: "c", cluster: "c", user: "u" } };
}

/** Waits (in real time, for the socket) until the server has the request, then moves virtual time past the deadline. */
async function passDeadline(clock: FakeClock, requests: () => number, ms: number): Promise<void> {
  for (let i = 0; requests() === 0; i++) {
    if (i > 500) throw new Error("the request never reached the server");
    await Bun.sleep(10);
  }
  await clock.advance(ms);
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const outcome = await p.then(
    () => new Error("the request succeeded"),
    (err: unknown) => err,
  );
  if (!(outcome instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(outcome)}`);
  return outcome;
}

describe("a request to an apiserver that accepts and never answers", () => {
  test("a GET fails after the default 45 s with ClientTimeout, naming the server", async () => {
    const clock = new FakeClock();
    const { server, requests } = await silentServer();
    const client = createApiClient(config(server), { clock, qps: -1 });
    const pending = failure(client.get("/api/v1/namespaces/default/configmaps/app"));
    await passDeadline(clock, requests, DEFAULT_DEADLINE_MS - 1);
    let settled = false;
    void pending.then(() => (settled = true));
    await Bun.sleep(20);
    expect(settled).toBe(false);
    await clock.advance(1);
    const err = await pending;
    expect(err.reason).toBe("ClientTimeout");
    expect(isUnreachable(err)).toBe(true);
    expect(err.message).toBe(`GET /api/v1/namespaces/default/configmaps/app: no answer from ${server} within 45 s; the request was abandoned`);
  });

  test("the client's own deadline wins over the default (the heartbeat client's 10 s)", async () => {
    const clock = new FakeClock();
    const { server, requests } = await silentServer();
    const client = createApiClient(config(server), { clock, qps: -1, timeoutMs: 10_000 });
    const pending = failure(client.patchResourceVersion("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", { spec: {} }, "merge"));
    await passDeadline(clock, requests, 10_000);
    const err = await pending;
    expect(err.reason).toBe("ClientTimeout");
    expect(err.message).toContain(`no answer from ${server} within 10 s`);
  });

  test("an answer whose body stops half-way fails at the deadline too", async () => {
    const clock = new FakeClock();
    const head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n" + '{"kind":"Pod",';
    const { server, requests } = await silentServer(head);
    const client = createApiClient(config(server), { clock, qps: -1 });
    const pending = failure(client.get("/api/v1/namespaces/default/pods/p"));
    await passDeadline(clock, requests, DEFAULT_DEADLINE_MS);
    const err = await pending;
    expect(err.reason).toBe("ClientTimeout");
    expect(err.message).toContain(`no answer from ${server} within 45 s`);
  });

  test("a watch gets its timeoutSeconds and 30 s more, then fails with ClientTimeout (the reflector watches again)", async () => {
    const clock = new FakeClock();
    const head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    const { server, requests } = await silentServer(head);
    const client = createApiClient(config(server), { clock, qps: -1 });
    const events = client.watch("/api/v1/pods", { timeoutSeconds: 300 })[Symbol.asyncIterator]();
    const pending = failure(events.next());
    await passDeadline(clock, requests, 300_000 + 29_000);
    let settled = false;
    void pending.then(() => (settled = true));
    await Bun.sleep(20);
    expect(settled).toBe(false);
    await clock.advance(1_000);
    const err = await pending;
    expect(err.reason).toBe("ClientTimeout");
    expect(err.message).toBe(`watch /api/v1/pods: ${server} neither ended the watch nor sent anything within 330 s; the watch was abandoned`);
  });
});

describe("a watch that goes silent", () => {
  const head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
  const bookmark = JSON.stringify({ type: "BOOKMARK", object: { kind: "Pod", apiVersion: "v1", metadata: { resourceVersion: "12" } } }) + "\n";

  test("is abandoned when nothing, not even a bookmark, came for its idle limit; each event starts the limit again", async () => {
    const clock = new FakeClock();
    let socket: Socket | undefined;
    const tcp = createServer((s) => {
      sockets.push(s);
      s.on("error", () => {});
      s.once("data", () => {
        socket = s;
        s.write(head + chunk(bookmark));
      });
    });
    servers.push(tcp);
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    const server = `http://127.0.0.1:${(tcp.address() as { port: number }).port}`;
    const client = createApiClient(config(server), { clock, qps: -1 });
    const events = client.watch("/api/v1/pods", { timeoutSeconds: 600, allowWatchBookmarks: true, idleTimeoutMs: 180_000 })[Symbol.asyncIterator]();
    expect((await events.next()).value).toMatchObject({ type: "BOOKMARK" });
    // 100 s later another bookmark: the limit starts again from there.
    await clock.advance(100_000);
    const second = events.next();
    socket!.write(chunk(bookmark));
    expect((await second).value).toMatchObject({ type: "BOOKMARK" });
    const pending = failure(events.next());
    await clock.advance(179_000);
    let settled = false;
    void pending.then(() => (settled = true));
    await Bun.sleep(20);
    expect(settled).toBe(false);
    await clock.advance(1_000);
    const err = await pending;
    expect(err.reason).toBe("ClientTimeout");
    expect(err.message).toBe(`watch /api/v1/pods: nothing from ${server} for 180 s (not even a bookmark, which comes every minute); the watch was abandoned`);
  });
});

describe("the callers go on", () => {
  test("the reflector's list fails at the deadline, is logged with the server, and is tried again after its backoff", async () => {
    const clock = new FakeClock();
    const { server, requests } = await silentServer();
    const client = createApiClient(config(server), { clock, qps: -1 });
    const log = createMemoryLogger();
    const stop = new AbortController();
    const reflector = createReflector({ client, path: "/api/v1/pods", store: new ObjectStore(), clock, random: () => 0, log, name: "*v1.Pod" });
    const running = reflector.run(stop.signal);
    await passDeadline(clock, requests, DEFAULT_DEADLINE_MS);
    await clock.whenTimer(800);
    const line = log.lines.find((l) => l.msg === "List failed; listing again after a backoff, keeping what was listed before");
    expect(String(line?.err)).toContain(`GET /api/v1/pods: no answer from ${server} within 45 s`);
    expect(requests()).toBe(1);
    await clock.advance(800);
    for (let i = 0; requests() < 2 && i < 500; i++) await Bun.sleep(10);
    expect(requests()).toBe(2);
    stop.abort();
    await running;
    expect(reflector.hasSynced()).toBe(false);
  });
});
