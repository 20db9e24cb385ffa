import { afterEach, describe, expect, test } from "bun:test";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { HttpSource, type PollResult } from "../../../src/podconfig/http-source.ts";
import { maxConfigLength } from "../../../src/podconfig/decode.ts";
import { names, nodeName, podManifest, SnapshotRecorder, waitFor } from "./helpers.ts";

interface Answer {
  status: number;
  body: string;
}

/** A manifest server on 127.0.0.1 whose answer the test sets, recording every request. */
function manifestServer(first: Answer) {
  let answer = first;
  const requests: { headers: Headers }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      requests.push({ headers: new Headers(req.headers) });
      return new Response(answer.body, { status: answer.status });
    },
  });
  cleanups.push(() => server.stop(true));
  return {
    url: `http://127.0.0.1:${server.port}/pods`,
    requests,
    answer(next: Answer) {
      answer = next;
    },
  };
}

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function source(url: string, headers?: Record<string, string[]>) {
  const clock = new FakeClock();
  const log = createMemoryLogger();
  const metrics = createMetrics();
  const recorder = new SnapshotRecorder();
  const src = new HttpSource({ url, headers, nodeName, clock, log, periodMs: 20_000, metrics, onSnapshot: recorder.onSnapshot });
  const manifestErrorCount = async () => (await metrics.manifestErrors.get()).values.find((v) => v.labels.source === "http")?.value ?? 0;
  return { clock, log, recorder, src, manifestErrorCount };
}

const podList = (...pods: string[]) =>
  JSON.stringify({ apiVersion: "v1", kind: "PodList", items: pods.map((p) => JSON.parse(p)) });

describe("HTTP source", () => {
  test("a single Pod is sent as the snapshot, with URL defaults (no toleration)", async () => {
    const server = manifestServer({ status: 200, body: podManifest("web") });
    const { src, recorder } = source(server.url);
    expect(await src.poll()).toBe("sent" satisfies PollResult);
    const [pod] = recorder.snapshots[0];
    expect(pod.metadata.name).toBe("web-node-a");
    expect(pod.spec.tolerations).toBeUndefined();
    expect(pod.metadata.uid).toMatch(/^[0-9a-f]{32}$/);
  });

  test("a PodList is sent as one snapshot", async () => {
    const server = manifestServer({ status: 200, body: podList(podManifest("a"), podManifest("b")) });
    const { src, recorder } = source(server.url);
    expect(await src.poll()).toBe("sent");
    expect(recorder.snapshots.map(names)).toEqual([["a-node-a", "b-node-a"]]);
  });

  test("an identical body is not sent again, a changed one is", async () => {
    const server = manifestServer({ status: 200, body: podManifest("web") });
    const { src, recorder } = source(server.url);
    expect(await src.poll()).toBe("sent");
    expect(await src.poll()).toBe("unchanged");
    server.answer({ status: 200, body: podManifest("db") });
    expect(await src.poll()).toBe("sent");
    expect(recorder.snapshots.map(names)).toEqual([["web-node-a"], ["db-node-a"]]);
    expect(server.requests.length).toBe(3);
  });

  test("an empty body sends an empty snapshot, and the same pods coming back are sent again", async () => {
    const server = manifestServer({ status: 200, body: podManifest("web") });
    const { src, recorder } = source(server.url);
    await src.poll();
    server.answer({ status: 200, body: "" });
    expect(await src.poll()).toBe("sent");
    server.answer({ status: 200, body: podManifest("web") });
    expect(await src.poll()).toBe("sent");
    expect(recorder.snapshots.map(names)).toEqual([["web-node-a"], [], ["web-node-a"]]);
  });

  test("a 404 sends nothing and is logged as a failure", async () => {
    const server = manifestServer({ status: 404, body: "not found" });
    const { src, recorder, log } = source(server.url);
    expect(await src.poll()).toBe("failed");
    expect(recorder.snapshots).toEqual([]);
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "warn", url: server.url, failures: 1 }));
  });

  test("a refused connection is logged in Go's words, as the kubelet logs it", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = closed.port;
    const url = `http://127.0.0.1:${port}/pods`;
    closed.stop(true);
    const { src, log } = source(url);
    expect(await src.poll()).toBe("failed");
    expect((log.lines[0].err as Error).message).toBe(`Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused`);
  });

  test("a body that does not decode sends nothing, is reported with the URL and counted", async () => {
    const server = manifestServer({ status: 200, body: podManifest("web", { image: "" }) });
    const { src, recorder, manifestErrorCount } = source(server.url);
    expect(await src.poll()).toBe("failed");
    expect(recorder.snapshots).toEqual([]);
    expect(src.manifestErrors().get(server.url)?.message).toBe(`${server.url}: spec.containers[0].image: Required value`);
    expect(await manifestErrorCount()).toBe(1);
    server.answer({ status: 200, body: podManifest("web") });
    expect(await src.poll()).toBe("sent");
    expect(src.manifestErrors().size).toBe(0);
  });

  test("a body over 10 MiB is refused without being decoded", async () => {
    const server = manifestServer({ status: 200, body: podManifest("web") + " ".repeat(maxConfigLength) });
    const { src, recorder, log } = source(server.url);
    expect(await src.poll()).toBe("failed");
    expect(recorder.snapshots).toEqual([]);
    expect(String(log.lines[0].err)).toContain("larger than the limit");
  });

  test("the configured headers are sent, a repeated name with each value", async () => {
    const server = manifestServer({ status: 200, body: podManifest("web") });
    const { src } = source(server.url, { "Metadata-Flavor": ["Google"], "X-Multi": ["a", "b"] });
    await src.poll();
    const got = server.requests[0].headers;
    expect(got.get("metadata-flavor")).toBe("Google");
    expect(got.get("x-multi")).toBe("a, b");
  });

  test("a connection refused is a failure, not a snapshot", async () => {
    const server = manifestServer({ status: 200, body: "" });
    const url = server.url;
    await cleanups.pop()!();
    const { src, recorder } = source(url);
    expect(await src.poll()).toBe("failed");
    expect(recorder.snapshots).toEqual([]);
  });

  test("failures are logged loudly three times, then at most once a minute", async () => {
    const server = manifestServer({ status: 500, body: "" });
    const { src, log, clock } = source(server.url);
    const warnings = () => log.lines.filter((l) => l.level === "warn").length;
    for (let i = 0; i < 5; i++) await src.poll();
    expect(warnings()).toBe(3);
    expect(log.lines.filter((l) => l.level === "debug").length).toBe(2);
    await clock.advance(60_000);
    await src.poll();
    expect(warnings()).toBe(4);
    server.answer({ status: 200, body: podManifest("web") });
    await src.poll();
    expect(log.lines.at(-1)).toMatchObject({ level: "info", msg: "Read pods from manifest URL again", failures: 6 });
  });

  test("run() polls at once and then every httpCheckFrequency on the clock", async () => {
    const server = manifestServer({ status: 200, body: podManifest("web") });
    const { src, clock } = source(server.url);
    const stop = new AbortController();
    const startedAt = clock.now();
    const running = src.run(stop.signal);
    // The next poll is scheduled once the first one has finished. Wait for that very timer: the
    // first request's own 10 s deadline is a pending timer too, while the answer is on its way.
    const due = await clock.whenTimer(20_000, AbortSignal.timeout(5_000));
    expect(server.requests.length).toBe(1);
    expect(due).toBe(startedAt + 20_000);
    await clock.advance(19_999);
    expect(await clock.whenTimer(20_000)).toBe(due); // still waiting: no second poll yet
    await clock.advance(1);
    await waitFor("the second poll", () => (server.requests.length === 2 ? true : undefined));
    stop.abort();
    await running;
  });

  test("a request that outlives the timeout is abandoned as a failure", async () => {
    const hanging = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
    cleanups.push(() => hanging.stop(true));
    const clock = new FakeClock();
    const src = new HttpSource({
      url: `http://127.0.0.1:${hanging.port}/`,
      nodeName,
      clock,
      log: createMemoryLogger(),
      periodMs: 20_000,
      timeoutMs: 10_000,
      metrics: createMetrics(),
      onSnapshot: async () => {},
    });
    const result = src.poll();
    await clock.whenTimer(10_000, AbortSignal.timeout(5_000));
    await clock.advance(10_000);
    expect(await result).toBe("failed");
  });
});

describe("HTTP source credentials (CVE-2019-11250 class: credentials in logs)", () => {
  test("a password in the URL's user info is sent but never logged, nor put in errors or the source name", async () => {
    const server = manifestServer({ status: 500, body: "no" });
    const withPassword = server.url.replace("http://", "http://node:s3cr3t-pw@");
    const { src, log } = source(withPassword);
    expect(await src.poll()).toBe("failed");
    // Sent as basic auth, as Go's client does with user info.
    expect(server.requests[0]!.headers.get("authorization")).toBe(`Basic ${btoa("node:s3cr3t-pw")}`);
    expect(src.url).toBe(server.url.replace("http://", "http://node:xxxxx@"));
    const logged = JSON.stringify(log.lines, (_k, v) => (v instanceof Error ? v.message : v));
    expect(logged).toContain("node:xxxxx@127.0.0.1");
    expect(logged).not.toContain("s3cr3t-pw");

    // A transport error names the URL as net/http does, its password stripped.
    const unreachable = source("http://node:s3cr3t-pw@127.0.0.1:1/pods");
    expect(await unreachable.src.poll()).toBe("failed");
    const err = (unreachable.log.lines.find((l) => l.err)!.err as Error).message;
    expect(err).toStartWith('Get "http://node:***@127.0.0.1:1/pods": dial tcp 127.0.0.1:1: connect: connection refused');
  });
});
