// Beyond the kubelet, across restarts (issue 18.10): the last good version of each manifest is
// kept under the root dir, so a file source started while a manifest is broken still sends that
// manifest's last good pod (same UID: the running pod is adopted, not killed as an orphan). A
// deleted manifest still removes its pod, and its saved version with it.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { FileSource } from "../../../src/podconfig/file-source.ts";
import { createLastGoodStore } from "../../../src/podconfig/last-good-store.ts";
import { advanceUntil, nodeName, podManifest, SnapshotRecorder, tempDir, withNames, writeAtomically } from "./helpers.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dirs() {
  const d = tempDir();
  cleanups.push(d.cleanup);
  const manifests = join(d.path, "manifests");
  mkdirSync(manifests);
  return { manifests, store: join(d.path, "root", "static-pods") };
}

/** One run of a file source over `manifests`, as one bunlet process would have it. */
function run(manifests: string, storeDir: string) {
  const clock = new FakeClock();
  const log = createMemoryLogger();
  const recorder = new SnapshotRecorder();
  const source = new FileSource({
    path: manifests,
    nodeName,
    clock,
    log,
    checkFrequencyMs: 20_000,
    metrics: createMetrics(),
    onSnapshot: recorder.onSnapshot,
    store: createLastGoodStore(storeDir),
  });
  const stop = new AbortController();
  const running = source.run(stop.signal);
  const halt = async () => {
    stop.abort();
    await running;
  };
  cleanups.push(halt);
  return { clock, log, recorder, source, halt };
}

describe("createLastGoodStore", () => {
  test("saves a manifest's bytes under its path, loads them back, and prunes what is gone", async () => {
    const { store: dir } = dirs();
    const store = createLastGoodStore(dir);
    expect(await store.load("/m/web.yaml")).toBeUndefined();
    await store.prune(new Set());
    await store.save("/m/web.yaml", Buffer.from("kind: Pod\n"));
    await store.save("/other/web.yaml", Buffer.from([0xff, 0x00, 0x41]));
    expect(readdirSync(dir).length).toBe(2);
    // A fresh store (a restarted bunlet) reads the same.
    const again = createLastGoodStore(dir);
    expect((await again.load("/m/web.yaml"))?.toString()).toBe("kind: Pod\n");
    expect(await again.load("/other/web.yaml")).toEqual(Buffer.from([0xff, 0x00, 0x41]));
    const entry = JSON.parse(readFileSync(join(dir, readdirSync(dir).find((f) => f.startsWith("web.yaml-"))!), "utf8"));
    expect(entry.source === "/m/web.yaml" || entry.source === "/other/web.yaml").toBe(true);
    await again.prune(new Set(["/m/web.yaml"]));
    expect(await again.load("/other/web.yaml")).toBeUndefined();
    expect((await again.load("/m/web.yaml"))?.toString()).toBe("kind: Pod\n");
  });
});

describe("file source with a last good store", () => {
  test("a restart while a manifest is broken sends its last good pod at once, with the same UID, and reports the error", async () => {
    const { manifests, store } = dirs();
    const file = join(manifests, "web.yaml");
    writeAtomically(join(manifests, "keep.yaml"), podManifest("keep"));
    writeAtomically(file, podManifest("web"));
    const first = run(manifests, store);
    const before = await first.recorder.next("the first run's list", withNames("keep-node-a", "web-node-a"));
    await first.halt();

    writeFileSync(file, "apiVersion: v1\nkind: Pod\nspec: [\n");
    const second = run(manifests, store);
    const after = await second.recorder.next("the second run's first list");
    expect(after.map((p) => p.metadata.uid)).toEqual(before.map((p) => p.metadata.uid));
    expect(second.log.lines).toContainEqual(
      expect.objectContaining({ msg: "Static pod manifest is invalid; using its last good version saved by a previous run", file, pod: { name: "web-node-a", namespace: "default" } }),
    );
    await advanceUntil(second.clock, "the error reported", () => second.source.manifestErrors().get(file));
    expect(second.source.keptPodErrors().get(before[1].metadata.uid!)?.source).toBe(file);
    expect(second.log.lines).toContainEqual(
      expect.objectContaining({ level: "error", file, msg: "Static pod manifest is invalid; keeping the last good version of its pod until it is fixed or removed" }),
    );

    // Fixed: the new version replaces it, and becomes the saved one.
    writeAtomically(file, podManifest("web", { command: ["sleep", "7"] }));
    const fixed = await second.recorder.next("the fixed pod", (pods) => pods.length === 2 && pods[1].metadata.uid !== before[1].metadata.uid);
    await second.halt();
    writeFileSync(file, "{");
    const third = run(manifests, store);
    expect((await third.recorder.next("the third run's first list"))[1].metadata.uid).toBe(fixed[1].metadata.uid);
  });

  test("a deleted manifest removes its pod and its saved version; a broken file in its place runs nothing", async () => {
    const { manifests, store } = dirs();
    const file = join(manifests, "web.yaml");
    writeAtomically(file, podManifest("web"));
    const first = run(manifests, store);
    await first.recorder.next("the first list", withNames("web-node-a"));
    expect(readdirSync(store).length).toBe(1);
    rmSync(file);
    await first.recorder.next("the pod gone", withNames());
    expect(readdirSync(store)).toEqual([]);
    await first.halt();

    writeFileSync(file, "{");
    const second = run(manifests, store);
    expect(await second.recorder.next("the second run's list")).toEqual([]);
  });

  test("a manifest deleted while bunlet was stopped is not brought back by its saved version", async () => {
    const { manifests, store } = dirs();
    const file = join(manifests, "web.yaml");
    writeAtomically(file, podManifest("web"));
    const first = run(manifests, store);
    await first.recorder.next("the first list", withNames("web-node-a"));
    await first.halt();

    rmSync(file);
    const second = run(manifests, store);
    expect(await second.recorder.next("the second run's list")).toEqual([]);
    expect(existsSync(store) ? readdirSync(store) : []).toEqual([]);
    await second.halt();

    writeFileSync(file, "{");
    const third = run(manifests, store);
    expect(await third.recorder.next("the third run's list")).toEqual([]);
  });
});
