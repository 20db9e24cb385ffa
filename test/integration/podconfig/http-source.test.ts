import { afterEach, describe, expect, test } from "bun:test";
import { createMemoryLogger, FakeClock } from "../../../src/lib/index.ts";
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
    const running = src.run(stop.signal);
    await waitFor("the first poll", () => (server.requests.length === 1 ? true : undefined));
    await waitFor("the next poll to be scheduled", () => (clock.pending === 1 ? true : undefined));
    await clock.advance(19_999);
    expect(server.requests.length).toBe(1);
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
    await waitFor("the request deadline to be set", () => (clock.pending === 1 ? true : undefined));
    await clock.advance(10_000);
    expect(await result).toBe("failed");
  });
});
