import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, symlinkSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { FileSource } from "../../../src/podconfig/file-source.ts";
import { advanceUntil, inotifyWatchesOn, nodeName, podManifest, SnapshotRecorder, tempDir, waitFor, withNames, writeAtomically } from "./helpers.ts";

const period = 20_000;
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dir(): string {
  const d = tempDir();
  cleanups.push(d.cleanup);
  return d.path;
}

function startSource(path: string) {
  const clock = new FakeClock();
  const log = createMemoryLogger();
  const metrics = createMetrics();
  const recorder = new SnapshotRecorder();
  const source = new FileSource({ path, nodeName, clock, log, checkFrequencyMs: period, metrics, onSnapshot: recorder.onSnapshot });
  const stop = new AbortController();
  const running = source.run(stop.signal);
  cleanups.push(async () => {
    stop.abort();
    await running;
  });
  const manifestErrorCount = async () => (await metrics.manifestErrors.get()).values.find((v) => v.labels.source === "file")?.value ?? 0;
  const rejected = async () => (await metrics.rejectedManifests.get()).values.find((v) => v.labels.source === "file")?.value ?? 0;
  return { clock, log, source, recorder, stop, running, manifestErrorCount, rejected };
}

describe("file source: a directory of manifests", () => {
  test("the first list sends every manifest's pod, in file name order", async () => {
    const d = dir();
    writeFileSync(join(d, "b.yaml"), podManifest("second"));
    writeFileSync(join(d, "a.json"), podManifest("first"));
    const { recorder } = startSource(d);
    const pods = await recorder.next("the first list");
    expect(pods.map((p) => [p.metadata.name, p.metadata.namespace])).toEqual([
      ["first-node-a", "default"],
      ["second-node-a", "default"],
    ]);
  });

  test("an empty directory sends an empty snapshot", async () => {
    const { recorder } = startSource(dir());
    expect(await recorder.next("the first list")).toEqual([]);
  });

  test("creating, modifying, renaming and deleting a file each send the full snapshot", async () => {
    const d = dir();
    writeFileSync(join(d, "keep.yaml"), podManifest("keep"));
    const { recorder } = startSource(d);
    await recorder.next("the first list", withNames("keep-node-a"));

    writeFileSync(join(d, "web.yaml"), podManifest("web"));
    const created = await recorder.next("the new file's pod", withNames("keep-node-a", "web-node-a"));
    const uid = created[1].metadata.uid;

    writeFileSync(join(d, "web.yaml"), podManifest("web", { command: ["sleep", "10"] }));
    const modified = await recorder.next("the edited pod", (pods) => pods.length === 2 && pods[1].metadata.uid !== uid);
    expect(modified[1].spec.containers[0].command).toEqual(["sleep", "10"]);

    renameSync(join(d, "web.yaml"), join(d, "web2.yaml"));
    const renamed = await recorder.next("the renamed file's pod", (pods) => pods.length === 2 && pods[1].metadata.uid !== modified[1].metadata.uid);
    expect(renamed[1].metadata.name).toBe("web-node-a");

    rmSync(join(d, "web2.yaml"));
    await recorder.next("the pod gone", withNames("keep-node-a"));
  });

  test("names starting with a dot are ignored, and a write through a dot-file lands once renamed", async () => {
    const d = dir();
    writeFileSync(join(d, ".hidden.yaml"), podManifest("hidden"));
    const { recorder } = startSource(d);
    expect(await recorder.next("the first list")).toEqual([]);
    writeFileSync(join(d, ".swap"), podManifest("swap"));
    writeAtomically(join(d, "web.yaml"), podManifest("web"));
    await recorder.next("the renamed-in manifest", withNames("web-node-a"));
    expect(recorder.snapshots.flat().map((p) => p.metadata.name)).not.toContain("hidden-node-a");
    expect(recorder.snapshots.flat().map((p) => p.metadata.name)).not.toContain("swap-node-a");
  });

  test("subdirectories are not recursed into", async () => {
    const d = dir();
    mkdirSync(join(d, "sub"));
    writeFileSync(join(d, "sub", "inner.yaml"), podManifest("inner"));
    writeFileSync(join(d, "top.yaml"), podManifest("top"));
    const { recorder, log } = startSource(d);
    await recorder.next("the first list", withNames("top-node-a"));
    expect(log.lines).toContainEqual(expect.objectContaining({ msg: "Not recursing into manifest path", path: join(d, "sub") }));
  });

  test("symlinks to files are manifests; dangling symlinks are not", async () => {
    const d = dir();
    const elsewhere = dir();
    writeFileSync(join(elsewhere, "real.yaml"), podManifest("linked"));
    symlinkSync(join(elsewhere, "real.yaml"), join(d, "link.yaml"));
    symlinkSync(join(elsewhere, "missing.yaml"), join(d, "dangling.yaml"));
    const { recorder } = startSource(d);
    const pods = await recorder.next("the first list", withNames("linked-node-a"));
    expect(pods[0].metadata.annotations?.["kubernetes.io/config.hash"]).toBe(pods[0].metadata.uid);
  });

  test("the periodic relist picks up what inotify cannot see (a symlink target changing)", async () => {
    const d = dir();
    const elsewhere = dir();
    writeFileSync(join(elsewhere, "real.yaml"), podManifest("before"));
    symlinkSync(join(elsewhere, "real.yaml"), join(d, "link.yaml"));
    const { recorder, clock } = startSource(d);
    await recorder.next("the first list", withNames("before-node-a"));
    writeFileSync(join(elsewhere, "real.yaml"), podManifest("after"));
    await clock.advance(period);
    await recorder.next("the relist after fileCheckFrequency", withNames("after-node-a"));
  });
});

describe("file source: a single manifest file", () => {
  test("the file is listed, and edits (also by rename-over) are seen through its directory", async () => {
    const d = dir();
    const file = join(d, "web.yaml");
    writeFileSync(file, podManifest("web"));
    writeFileSync(join(d, "other.yaml"), podManifest("other"));
    const { recorder } = startSource(file);
    const first = await recorder.next("the first list", withNames("web-node-a"));
    writeAtomically(file, podManifest("web", { command: ["sleep", "5"] }));
    const edited = await recorder.next("the replaced file", (pods) => pods.length === 1 && pods[0].metadata.uid !== first[0].metadata.uid);
    expect(edited[0].spec.containers[0].command).toEqual(["sleep", "5"]);
  });
});

describe("file source: a path that is missing", () => {
  test("sends an empty snapshot, retries with backoff from 1s, and lists the directory once it appears", async () => {
    const parent = dir();
    const d = join(parent, "manifests");
    const { recorder, clock, log } = startSource(d);
    const retries = () => log.lines.filter((l) => l.msg === "Static pod path is not there (yet); will look again").map((l) => l.retryInMs);

    expect(await recorder.next("the empty snapshot of a missing path")).toEqual([]);
    await waitFor("the first retry to be scheduled", () => (retries().length === 1 ? true : undefined));
    await clock.advance(1_000);
    expect(await recorder.next("the second empty snapshot")).toEqual([]);
    await waitFor("the second retry to be scheduled", () => (retries().length === 2 ? true : undefined));
    expect(retries()).toEqual([1_000, 2_000]);

    mkdirSync(d);
    writeFileSync(join(d, "web.yaml"), podManifest("web"));
    await clock.advance(2_000);
    await recorder.next("the directory's pod", withNames("web-node-a"));
    writeFileSync(join(d, "db.yaml"), podManifest("db"));
    await recorder.next("a file added under the new watch", withNames("db-node-a", "web-node-a"));
  });

  test("a directory removed and created again is listed and watched again", async () => {
    const parent = dir();
    const d = join(parent, "manifests");
    mkdirSync(d);
    writeFileSync(join(d, "web.yaml"), podManifest("web"));
    const { recorder, clock, log } = startSource(d);
    await recorder.next("the first list", withNames("web-node-a"));
    rmSync(d, { recursive: true });
    await recorder.next("the empty snapshot after removal", withNames());
    await waitFor("the retry to be scheduled", () => log.lines.find((l) => l.retryInMs === 1_000));
    mkdirSync(d);
    writeFileSync(join(d, "db.yaml"), podManifest("db"));
    await clock.advance(1_000);
    await recorder.next("the recreated directory's pod", withNames("db-node-a"));
    writeFileSync(join(d, "web.yaml"), podManifest("web"));
    await recorder.next("an event from the new directory", withNames("db-node-a", "web-node-a"));
  });
});

describe("file source: bad manifests (beyond the kubelet: the last good pod stays)", () => {
  test("a broken edit keeps the last good pod, reports and counts the error once settled, logs it again at each periodic check, and logs the recovery", async () => {
    const d = dir();
    const file = join(d, "web.yaml");
    writeFileSync(file, podManifest("web"));
    const { recorder, source, log, clock, manifestErrorCount, rejected } = startSource(d);
    const good = await recorder.next("the first list", withNames("web-node-a"));

    // Edits land whole (through a rename), so no half-written version can be reported.
    writeAtomically(file, "apiVersion: v1\nkind: Pod\nmetadata: {name: web\n");
    const kept = await recorder.next("a snapshot after the broken edit");
    expect(kept).toEqual(good);
    await advanceUntil(clock, "the error to be reported", () => source.manifestErrors().get(file));
    expect(source.manifestErrors().get(file)?.code).toBe("Syntax");
    expect(await manifestErrorCount()).toBe(1);
    expect(await rejected()).toBe(1);
    const errorLines = () => log.lines.filter((l) => l.level === "error" && l.file === file);
    expect(errorLines()[0]).toMatchObject({ pod: { name: "web-node-a", namespace: "default" } });

    const logged = errorLines().length;
    await clock.advance(period);
    await waitFor("the periodic check to log it again", () => (errorLines().length > logged ? true : undefined));
    expect(errorLines().length).toBe(logged + 1);
    expect(await manifestErrorCount()).toBe(1);

    writeAtomically(file, podManifest("web", { command: ["sleep", "1"] }));
    const fixed = await recorder.next("the fixed pod", (pods) => pods.length === 1 && pods[0].metadata.uid !== good[0].metadata.uid);
    expect(fixed[0].spec.containers[0].command).toEqual(["sleep", "1"]);
    expect(source.manifestErrors().size).toBe(0);
    expect(await rejected()).toBe(0);
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "info", msg: "Static pod manifest is valid again", file, pod: { name: "web-node-a", namespace: "default" } }));

    writeAtomically(file, podManifest("web", { image: "" }));
    const message = `${file}: spec.containers[0].image: Required value`;
    await advanceUntil(clock, "the validation error", () => (source.manifestErrors().get(file)?.message === message ? true : undefined));
    expect(await manifestErrorCount()).toBe(2);
    expect(recorder.snapshots.at(-1)?.[0].metadata.uid).toBe(fixed[0].metadata.uid);

    rmSync(file);
    await recorder.next("the pod removed with its file", withNames());
    expect(source.manifestErrors().size).toBe(0);
    expect(await rejected()).toBe(0);
    expect(log.lines).toContainEqual(expect.objectContaining({ msg: "Invalid static pod manifest was removed", file }));
  });

  test("a half-written file fixed by the next write is never reported (cat > web.yaml)", async () => {
    const d = dir();
    const file = join(d, "web.yaml");
    writeFileSync(file, podManifest("web"));
    const { recorder, source, log, clock, manifestErrorCount } = startSource(d);
    const good = await recorder.next("the first list", withNames("web-node-a"));

    // The shell's truncate, seen by inotify before the content arrives.
    writeFileSync(file, "");
    expect(await recorder.next("the relist of the empty file")).toEqual(good);
    expect(log.lines.some((l) => l.msg === "Static pod manifest does not decode yet; reporting it if it stays so" && l.file === file)).toBe(true);
    writeFileSync(file, podManifest("web", { command: ["sleep", "2"] }));
    await recorder.next("the new version", (pods) => pods.length === 1 && pods[0].metadata.uid !== good[0].metadata.uid);
    await clock.advance(period);
    await recorder.next("the periodic relist");
    expect(source.manifestErrors().size).toBe(0);
    expect(await manifestErrorCount()).toBe(0);
    expect(log.lines.filter((l) => l.level === "error" || l.level === "warn")).toEqual([]);
    expect(log.lines.some((l) => l.msg === "Static pod manifest is valid again")).toBe(false);
  });

  test("one broken write is logged once when reported, however many watch events it raises; the periodic check logs it again", async () => {
    const d = dir();
    const file = join(d, "web.yaml");
    writeFileSync(file, podManifest("web"));
    const { recorder, source, log, clock } = startSource(d);
    await recorder.next("the first list", withNames("web-node-a"));

    // A plain write (truncate, then data): several watch events for one broken version.
    writeFileSync(file, podManifest("web", { image: "" }));
    await advanceUntil(clock, "the error to be reported", () => source.manifestErrors().get(file));
    const errorLines = () => log.lines.filter((l) => l.level === "error" && l.file === file);
    expect(errorLines().length).toBe(1);

    // inotify reports in order: once the next file is in a snapshot, every event before it has
    // been handled, and none of those relists logged the unchanged error again.
    writeFileSync(join(d, "marker.yaml"), podManifest("marker"));
    await recorder.next("the marker's snapshot", withNames("marker-node-a", "web-node-a"));
    expect(errorLines().length).toBe(1);

    await clock.advance(period);
    await waitFor("the periodic check's line", () => errorLines().length === 2);
  });

  test("a manifest that never decoded is skipped and, once settled, logged by file name; the others still run", async () => {
    const d = dir();
    writeFileSync(join(d, "bad.yaml"), podManifest("bad", { image: "" }));
    writeFileSync(join(d, "good.yaml"), podManifest("good"));
    const { recorder, log, source, clock } = startSource(d);
    await recorder.next("the first list", withNames("good-node-a"));
    expect(source.manifestErrors().size).toBe(0);
    await clock.advance(1_000);
    await recorder.next("the relist that reports it", withNames("good-node-a"));
    expect(log.lines).toContainEqual(
      expect.objectContaining({ level: "error", file: join(d, "bad.yaml"), msg: "Static pod manifest is invalid; ignoring it until it is fixed" }),
    );
    expect([...source.manifestErrors().keys()]).toEqual([join(d, "bad.yaml")]);
  });

  test("two files defining the same pod: the first by name runs, the other is reported once with both names", async () => {
    const d = dir();
    writeFileSync(join(d, "web.yaml"), podManifest("web"));
    writeFileSync(join(d, "web.yaml.bak"), podManifest("web", { command: ["sleep", "5"] }));
    const { recorder, log, source, clock, manifestErrorCount, rejected } = startSource(d);
    const pods = await recorder.next("the first list", withNames("web-node-a"));
    expect(pods[0].spec.containers[0].command).toEqual(["sleep", "3600"]);
    const err = source.manifestErrors().get(join(d, "web.yaml.bak"));
    expect(err?.message).toBe(
      `${join(d, "web.yaml.bak")}: metadata.name: Duplicate value: pod default/web-node-a is also defined by ${join(d, "web.yaml")}, which wins (files are read in name order); this file is ignored`,
    );
    expect(await rejected()).toBe(1);
    await clock.advance(period);
    await recorder.next("a periodic relist");
    await clock.advance(period);
    await recorder.next("another periodic relist");
    const warnings = log.lines.filter((l) => l.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ msg: "Two static pod manifests define the same pod; ignoring the later file until one of them changes", file: join(d, "web.yaml.bak") });
    expect(await manifestErrorCount()).toBe(1);

    rmSync(join(d, "web.yaml.bak"));
    await recorder.next("the relist without the copy", withNames("web-node-a"));
    expect(source.manifestErrors().size).toBe(0);
    expect(await rejected()).toBe(0);
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "info", msg: "Static pod manifest is no longer a duplicate", file: join(d, "web.yaml.bak") }));
  });

  test("stopping ends run() and sends nothing more", async () => {
    const d = dir();
    const { recorder, stop, running, clock } = startSource(d);
    await recorder.next("the first list");
    expect(inotifyWatchesOn(d)).toBe(1);
    stop.abort();
    await running;
    const count = recorder.snapshots.length;
    // Nothing is left that could list again: no timer on the clock, no inotify watch on the dir.
    expect(clock.pending).toBe(0);
    expect(inotifyWatchesOn(d)).toBe(0);
    // A late file reaches a watcher of the test's own; the stopped source sends nothing for it,
    // nor when its relist period comes round.
    const seen = Promise.withResolvers<void>();
    const witness = watch(d, (_event, name) => name === "late.yaml" && seen.resolve());
    cleanups.push(() => witness.close());
    writeFileSync(join(d, "late.yaml"), podManifest("late"));
    await seen.promise;
    await clock.advance(period);
    expect(recorder.snapshots.length).toBe(count);
  });
});
