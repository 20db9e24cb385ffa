import { afterEach, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigSourceAnnotationKey } from "../../../src/api/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { createPodConfig, type PodConfig, type PodUpdate } from "../../../src/podconfig/index.ts";
import type { PodConfigOptions } from "../../../src/podconfig/podconfig.ts";
import { advanceUntil, names, nodeName, podManifest, tempDir, waitFor } from "./helpers.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function start(opts: Partial<PodConfigOptions>) {
  const clock = new FakeClock();
  const log = createMemoryLogger();
  const abort = new AbortController();
  const config = createPodConfig({ nodeName, clock, log, metrics: createMetrics(), signal: abort.signal, ...opts });
  cleanups.push(() => config.stop());
  return { config, clock, log, abort, consumer: consume(config) };
}

/** The sync loop's side: reads every update and tracks the sources it has seen. */
function consume(config: PodConfig) {
  const updates: PodUpdate[] = [];
  const seen = new Set<string>();
  const done = (async () => {
    for await (const u of config.updates) {
      updates.push(u);
      seen.add(u.source);
    }
  })();
  const summary = () => updates.map((u) => `${u.source} ${u.op} ${names(u.pods).join(",")}`.trim());
  return {
    updates,
    seen,
    done,
    summary,
    until: (what: string, want: (lines: string[]) => boolean) =>
      waitFor(what, () => (want(summary()) ? summary() : undefined)).catch((err: Error) => {
        throw new Error(`${err.message}; updates so far: ${JSON.stringify(summary())}`);
      }),
  };
}

function manifestServer(status: number, body: string) {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(body, { status }) });
  cleanups.push(() => server.stop(true));
  return `http://127.0.0.1:${server.port}/pods`;
}

describe("PodConfig", () => {
  test("file and HTTP sources feed one ordered stream, and readiness needs both", async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    writeFileSync(join(d.path, "web.yaml"), podManifest("web"));
    const url = manifestServer(200, podManifest("remote"));
    const { config, consumer } = start({ staticPodPath: d.path, staticPodURL: url });
    expect(config.sources).toEqual(["file", "http"]);
    expect(config.seenAllSources(consumer.seen)).toBe(false);

    const lines = await consumer.until("both sources' first updates", (l) => l.length >= 2);
    expect([...lines].sort()).toEqual(["file ADD web-node-a", "http ADD remote-node-a"]);
    expect(config.seenAllSources(consumer.seen)).toBe(true);
    expect(config.seenAllSources(new Set(["file"]))).toBe(false);
    const web = consumer.updates.find((u) => u.source === "file")!.pods[0];
    expect(web.metadata.annotations?.[ConfigSourceAnnotationKey]).toBe("file");

    rmSync(join(d.path, "web.yaml"));
    await consumer.until("the REMOVE", (l) => l.at(-1) === "file REMOVE web-node-a");
  });

  test("an empty source says it is ready with an empty ADD", async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    const { config, consumer } = start({ staticPodPath: d.path });
    await consumer.until("the empty ADD", (l) => l.length === 1);
    expect(consumer.summary()).toEqual(["file ADD"]);
    expect(config.seenAllSources(consumer.seen)).toBe(true);
  });

  test("an HTTP source that answers 404 is never seen", async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    const url = manifestServer(404, "no");
    const { config, consumer, log } = start({ staticPodPath: d.path, staticPodURL: url });
    await consumer.until("the file source's empty ADD", (l) => l.length === 1);
    await waitFor("the failed poll", () => log.lines.find((l) => l.url === url && l.level === "warn"));
    expect(consumer.summary()).toEqual(["file ADD"]);
    expect(config.seenAllSources(consumer.seen)).toBe(false);
  });

  test("a broken edit sends no update and shows in lastManifestErrors; fixing it replaces the pod", async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    const file = join(d.path, "web.yaml");
    writeFileSync(file, podManifest("web"));
    const { config, consumer, clock } = start({ staticPodPath: d.path });
    await consumer.until("the ADD", (l) => l.length === 1);
    writeFileSync(file, "kind: Pod\n");
    await advanceUntil(clock, "the manifest error", () => config.lastManifestErrors().get(file));
    expect(config.lastManifestErrors().get(file)?.message).toBe(`${file}: apiVersion: Required value`);
    const keptUid = consumer.updates[0].pods[0].metadata.uid!;
    expect(config.keptPodErrors().get(keptUid)?.message).toBe(`${file}: apiVersion: Required value`);
    writeFileSync(file, podManifest("web", { command: ["sleep", "9"] }));
    await consumer.until("the replacement", (l) => l.length === 3);
    expect(consumer.summary()).toEqual(["file ADD web-node-a", "file REMOVE web-node-a", "file ADD web-node-a"]);
    expect(config.lastManifestErrors().size).toBe(0);
    expect(config.keptPodErrors().size).toBe(0);
  });

  test("stop() stops the sources and ends the consumer's loop", async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    const { config, consumer } = start({ staticPodPath: d.path, staticPodURL: manifestServer(200, "") });
    await consumer.until("both sources", (l) => l.length === 2);
    await config.stop();
    await consumer.done;
    expect(consumer.summary().length).toBe(2);
  });

  test("the caller's signal stops it too, even with nobody reading", async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    const clock = new FakeClock();
    const abort = new AbortController();
    const config = createPodConfig({
      staticPodPath: d.path,
      nodeName,
      clock,
      log: createMemoryLogger(),
      metrics: createMetrics(),
      signal: abort.signal,
    });
    abort.abort();
    await config.stop();
    const received: PodUpdate[] = [];
    for await (const u of config.updates) received.push(u);
    expect(received).toEqual([]);
  });

  test("no sources configured: nothing to wait for", async () => {
    const { config } = start({});
    expect(config.sources).toEqual([]);
    expect(config.seenAllSources(new Set())).toBe(true);
  });
});
