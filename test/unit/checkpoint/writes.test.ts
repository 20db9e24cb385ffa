import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, Secret } from "../../../src/api/index.ts";
import { createCheckpoint } from "../../../src/checkpoint/checkpoint.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { makePod } from "../../fixtures/pods.ts";

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), "bunlet-checkpoint-writes-")), "checkpoint");
});
afterEach(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

/** A pod that reads the Secret `<name>-secret` in an env var. */
function pod(name: string): Pod {
  return makePod({
    name,
    namespace: "ns",
    metadata: { uid: `uid-${name}` },
    spec: { containers: [{ name: "c", image: "busybox", env: [{ name: "P", valueFrom: { secretKeyRef: { name: `${name}-secret`, key: "p" } } }] }] },
  });
}
const secret = (name: string): Secret => ({ metadata: { name, namespace: "ns" }, data: { p: "eA==" } });

function open() {
  const log = createMemoryLogger();
  const clock = new FakeClock(1_000_000);
  const agent = new AbortController();
  const checkpoint = createCheckpoint({ dir, clock, log, signal: agent.signal });
  /** The files written so far, in order. */
  const writes = () => log.lines.filter((l) => l.msg === "Wrote checkpoint file").map((l) => String(l.path).slice(dir.length + 1));
  return { clock, checkpoint, writes, stop: () => agent.abort() };
}

const uidsInFile = () => (JSON.parse(readFileSync(join(dir, "pods.json"), "utf8")).items as Pod[]).map((p) => p.metadata.uid);
const secretsInFile = () => (JSON.parse(readFileSync(join(dir, "secrets", "secrets.json"), "utf8")).items as Secret[]).map((s) => s.metadata.name);

describe("checkpoint writes", () => {
  test("a burst of snapshots writes pods.json at most once a second, the newest last", async () => {
    const { clock, checkpoint, writes } = open();
    const pods: Pod[] = [];
    // 100 pods bound one by one over 2.5 s, a snapshot each, as the apiserver source records them.
    for (let i = 0; i < 100; i++) {
      pods.push(pod(`p${i}`));
      checkpoint.recordPods([...pods]);
      await clock.advance(25);
    }
    const podWrites = writes().filter((f) => f === "pods.json");
    // At once for the first, then at the end of each second: 0 ms, 1000 ms, 2000 ms, and 2500 ms's snapshot at 3000 ms.
    expect(podWrites.length).toBeLessThanOrEqual(3);
    await clock.advance(1_000);
    expect(writes().filter((f) => f === "pods.json").length).toBe(podWrites.length + 1);
    expect(uidsInFile()).toHaveLength(100);
  });

  test("a Secret read right after its pod's snapshot is kept in memory at once, and in the file with the snapshot", async () => {
    const { clock, checkpoint } = open();
    checkpoint.recordPods([pod("a")]);
    // Within the second after the first write: the snapshot waits for the file, not for memory.
    checkpoint.recordPods([pod("a"), pod("b")]);
    checkpoint.recordSecret("ns", "b-secret", secret("b-secret"));
    expect(checkpoint.secret("ns", "b-secret")?.metadata.name).toBe("b-secret");
    expect(uidsInFile()).toEqual(["uid-a"]);
    await clock.advance(1_000);
    expect(uidsInFile()).toEqual(["uid-a", "uid-b"]);
    expect(secretsInFile()).toEqual(["b-secret"]);
  });

  test("a change after a quiet second is written at once", async () => {
    const { clock, checkpoint, writes } = open();
    checkpoint.recordPods([pod("a")]);
    await clock.advance(1_000);
    const before = writes().length;
    checkpoint.recordPods([pod("a"), pod("b")]);
    expect(writes().length).toBe(before + 1);
    expect(uidsInFile()).toEqual(["uid-a", "uid-b"]);
  });

  test("when the agent stops, what waits is written at once, and every later change too", () => {
    const { checkpoint, stop } = open();
    checkpoint.recordPods([pod("a")]);
    checkpoint.recordPods([pod("a"), pod("b")]);
    stop();
    expect(uidsInFile()).toEqual(["uid-a", "uid-b"]);
    checkpoint.recordSecret("ns", "b-secret", secret("b-secret"));
    expect(secretsInFile()).toEqual(["b-secret"]);
  });

  test("a crash loses at most the last second: a restart finds the snapshot written before it", () => {
    const { checkpoint } = open();
    checkpoint.recordPods([pod("a")]);
    checkpoint.recordPods([pod("a"), pod("b")]);
    // No second passed and no stop: the process died here.
    expect(open().checkpoint.startPods?.map((p) => p.metadata.uid)).toEqual(["uid-a"]);
  });
});
