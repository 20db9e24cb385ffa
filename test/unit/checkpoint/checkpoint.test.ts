import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConfigMap, Pod, Secret, Service } from "../../../src/api/index.ts";
import { createCheckpoint } from "../../../src/checkpoint/checkpoint.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { makePod } from "../../fixtures/pods.ts";

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), "bunlet-checkpoint-")), "checkpoint");
});
afterEach(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

function pod(name: string, uid: string, extra: Partial<Pod["spec"]> = {}): Pod {
  return makePod({
    name,
    namespace: "ns",
    metadata: { uid, resourceVersion: "7", managedFields: [{ manager: "x" }] } as Partial<Pod["metadata"]>,
    spec: { containers: [{ name: "c", image: "busybox" }], ...extra },
    status: { phase: "Running" },
  });
}

const withConfigMapAndSecret = pod("web", "uid-web", {
  volumes: [{ name: "conf", configMap: { name: "web-conf" } }],
  containers: [{ name: "c", image: "busybox", env: [{ name: "PASSWORD", valueFrom: { secretKeyRef: { name: "web-secret", key: "password" } } }] }],
});
const cm = (name: string, data: Record<string, string>): ConfigMap => ({ metadata: { name, namespace: "ns" }, data });
const secret = (name: string): Secret => ({ metadata: { name, namespace: "ns" }, data: { password: "c2VjcmV0" } });

/** The agents of the test's checkpoints: opening one stops the ones before, as a restart does. */
let agents: AbortController[] = [];
afterEach(() => {
  agents = [];
});

function open(opts: { maxFileBytes?: number } = {}) {
  for (const agent of agents) agent.abort();
  const agent = new AbortController();
  agents.push(agent);
  const log = createMemoryLogger();
  const clock = new FakeClock(1_000_000);
  return { log, clock, stop: () => agent.abort(), checkpoint: createCheckpoint({ dir, clock, log, signal: agent.signal, ...opts }) };
}

const mtime = (path: string) => statSync(path).mtimeMs;
const read = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe("checkpoint store", () => {
  test("no checkpoint at all is told apart from a checkpoint of no pods", () => {
    expect(open().checkpoint.startPods).toBeUndefined();
    open().checkpoint.recordPods([]);
    expect(open().checkpoint.startPods).toEqual([]);
  });

  test("pods and the objects they reference come back after a restart, without status or resourceVersion", () => {
    const { checkpoint } = open();
    checkpoint.recordPods([withConfigMapAndSecret]);
    checkpoint.recordConfigMap("ns", "web-conf", cm("web-conf", { "app.conf": "x=1" }));
    checkpoint.recordSecret("ns", "web-secret", secret("web-secret"));
    const again = open().checkpoint;
    expect(again.startPods?.map((p) => p.metadata.uid)).toEqual(["uid-web"]);
    expect(again.startPods?.[0].status).toBeUndefined();
    expect((again.startPods![0].metadata as { resourceVersion?: string }).resourceVersion).toBeUndefined();
    expect(again.startPods?.[0].spec).toEqual(withConfigMapAndSecret.spec);
    expect(again.configMap("ns", "web-conf")?.data).toEqual({ "app.conf": "x=1" });
    expect(again.secret("ns", "web-secret")?.data).toEqual({ password: "c2VjcmV0" });
  });

  test("a pod that finished keeps its terminal phase, so a start from the checkpoint does not run it again", () => {
    const { checkpoint } = open();
    checkpoint.recordPods([{ ...pod("job", "uid-job"), status: { phase: "Succeeded", reason: "Completed", podIP: "10.0.0.9" } } as Pod]);
    expect(open().checkpoint.startPods?.[0].status).toEqual({ phase: "Succeeded", reason: "Completed" });
  });

  test("only objects the pods reference are kept, and an object no pod references any more is dropped", () => {
    const { checkpoint, stop } = open();
    checkpoint.recordPods([withConfigMapAndSecret]);
    checkpoint.recordConfigMap("ns", "other", cm("other", {}));
    checkpoint.recordSecret("other-ns", "web-secret", { ...secret("web-secret"), metadata: { name: "web-secret", namespace: "other-ns" } });
    checkpoint.recordConfigMap("ns", "web-conf", cm("web-conf", {}));
    expect(checkpoint.configMap("ns", "other")).toBeUndefined();
    expect(checkpoint.secret("other-ns", "web-secret")).toBeUndefined();
    checkpoint.recordPods([pod("plain", "uid-plain")]);
    expect(checkpoint.configMap("ns", "web-conf")).toBeUndefined();
    stop();
    expect(read(join(dir, "configmaps.json")).items).toEqual([]);
  });

  test("an object the apiserver says is gone is dropped", () => {
    const { checkpoint } = open();
    checkpoint.recordPods([withConfigMapAndSecret]);
    checkpoint.recordConfigMap("ns", "web-conf", cm("web-conf", {}));
    checkpoint.recordConfigMap("ns", "web-conf", undefined);
    expect(open().checkpoint.configMap("ns", "web-conf")).toBeUndefined();
  });

  test("secrets and tokens are 0600 files in a 0700 directory, and so is the rest", () => {
    const { checkpoint, stop } = open();
    checkpoint.recordPods([withConfigMapAndSecret]);
    checkpoint.recordSecret("ns", "web-secret", secret("web-secret"));
    checkpoint.recordToken({ key: "k", podUID: "uid-web", token: "t", expiresAt: 2_000_000 });
    checkpoint.recordConfigMap("ns", "web-conf", cm("web-conf", {}));
    stop();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "secrets")).mode & 0o777).toBe(0o700);
    for (const f of ["secrets/secrets.json", "secrets/tokens.json", "pods.json", "configmaps.json"]) {
      expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
    }
  });

  test("a directory left with a wider mode is narrowed to 0700", () => {
    open();
    Bun.spawnSync(["chmod", "0755", dir, join(dir, "secrets")]);
    open();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "secrets")).mode & 0o777).toBe(0o700);
  });

  test("a write is atomic: no temp file is left and the file is whole", () => {
    const { checkpoint } = open();
    writeFileSync(join(dir, "pods.json.tmp"), "left by a crash", { mode: 0o644 });
    checkpoint.recordPods([withConfigMapAndSecret]);
    expect(Bun.spawnSync(["ls", dir]).stdout.toString().split("\n").filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(read(join(dir, "pods.json")).items).toHaveLength(1);
  });

  test("an unchanged desired state rewrites nothing, whatever the status or resourceVersion says", async () => {
    const { checkpoint, clock } = open();
    checkpoint.recordPods([withConfigMapAndSecret]);
    checkpoint.recordConfigMap("ns", "web-conf", cm("web-conf", { a: "1" }));
    await clock.advance(1_000);
    const before = [mtime(join(dir, "pods.json")), mtime(join(dir, "configmaps.json"))];
    await Bun.sleep(20);
    const statusChanged = { ...withConfigMapAndSecret, metadata: { ...withConfigMapAndSecret.metadata, resourceVersion: "8" }, status: { phase: "Running", podIP: "10.1.1.1" } } as Pod;
    checkpoint.recordPods([statusChanged]);
    checkpoint.recordConfigMap("ns", "web-conf", cm("web-conf", { a: "1" }));
    await clock.advance(1_000);
    const again = open();
    again.checkpoint.recordPods([withConfigMapAndSecret]);
    again.stop();
    expect([mtime(join(dir, "pods.json")), mtime(join(dir, "configmaps.json"))]).toEqual(before);
    const third = open();
    third.checkpoint.recordPods([withConfigMapAndSecret]);
    third.checkpoint.recordConfigMap("ns", "web-conf", cm("web-conf", { a: "2" }));
    third.stop();
    expect(mtime(join(dir, "configmaps.json"))).toBeGreaterThan(before[1]);
  });

  test("a snapshot that repeats a pod object serialises it once: each watch event costs what changed", () => {
    const { checkpoint, stop } = open();
    let reads = 0;
    const watched = (name: string) => {
      const p = pod(name, `uid-${name}`);
      Object.defineProperty(p.spec, "nodeSelector", { enumerable: true, get: () => (reads++, { disk: "ssd" }) });
      return p;
    };
    const pods = Array.from({ length: 20 }, (_, i) => watched(`p${i}`));
    checkpoint.recordPods(pods);
    const written = readFileSync(join(dir, "pods.json"), "utf8");
    reads = 0;
    checkpoint.recordPods([...pods, pod("new", "uid-new")]);
    checkpoint.recordPods([...pods, pod("new", "uid-new")].reverse());
    stop();
    expect(reads).toBe(0);
    // The bytes are JSON.stringify's, as before: a file written by an older bunlet is not rewritten for nothing.
    const items = read(join(dir, "pods.json")).items as Pod[];
    expect(items).toHaveLength(21);
    expect(readFileSync(join(dir, "pods.json"), "utf8")).toBe(`${JSON.stringify({ kind: "Pods", items })}\n`);
    expect(written).toBe(`${JSON.stringify({ kind: "Pods", items: items.filter((p) => p.metadata.uid !== "uid-new") })}\n`);
  });

  test("a corrupt file is ignored with one error line and rewritten at the next change", () => {
    open().checkpoint.recordPods([withConfigMapAndSecret]);
    writeFileSync(join(dir, "pods.json"), '{"kind":"Pods","items":[{"metad');
    const { checkpoint, log } = open();
    expect(checkpoint.startPods).toBeUndefined();
    const errors = log.lines.filter((l) => l.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0].msg).toBe("Ignoring a corrupt checkpoint file; it is rewritten at the next change");
    checkpoint.recordPods([withConfigMapAndSecret]);
    expect(open().checkpoint.startPods).toHaveLength(1);
  });

  test("a file of another kind is corrupt too", () => {
    writeFileSync(join(dir, "..", "x"), "");
    open();
    writeFileSync(join(dir, "pods.json"), '{"kind":"Secrets","items":[]}');
    const { checkpoint, log } = open();
    expect(checkpoint.startPods).toBeUndefined();
    expect(log.lines.filter((l) => l.level === "error")).toHaveLength(1);
  });

  test("the size bound drops the largest objects first and says which, once", () => {
    const { checkpoint, log, stop } = open({ maxFileBytes: 520 });
    const pods = ["a", "b", "c"].map((n) =>
      pod(n, `uid-${n}`, { volumes: [{ name: "v", configMap: { name: n } }] }),
    );
    const smallPods = pods.map((p) => ({ ...p, spec: { containers: [], volumes: p.spec.volumes } }) as Pod);
    checkpoint.recordPods(smallPods);
    expect(read(join(dir, "pods.json")).items).toHaveLength(3);
    checkpoint.recordConfigMap("ns", "a", cm("a", { k: "x".repeat(50) }));
    checkpoint.recordConfigMap("ns", "b", cm("b", { k: "x".repeat(300) }));
    checkpoint.recordConfigMap("ns", "c", cm("c", { k: "x".repeat(60) }));
    stop();
    expect(read(join(dir, "configmaps.json")).items.map((c: ConfigMap) => c.metadata.name)).toEqual(["a", "c"]);
    expect(readFileSync(join(dir, "configmaps.json")).length).toBeLessThanOrEqual(520);
    const warnings = log.lines.filter((l) => l.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ kind: "ConfigMaps", limitBytes: 520, dropped: "ns/b" });
    checkpoint.recordConfigMap("ns", "b", cm("b", { k: "x".repeat(300) }));
    expect(log.lines.filter((l) => l.level === "warn")).toHaveLength(1);
  });

  test("a token is kept for its pod until it expires", async () => {
    const { checkpoint, clock } = open();
    checkpoint.recordPods([withConfigMapAndSecret]);
    checkpoint.recordToken({ key: "k", podUID: "uid-web", token: "t", expiresAt: 1_500_000 });
    checkpoint.recordToken({ key: "other", podUID: "uid-gone", token: "t", expiresAt: 1_500_000 });
    expect(checkpoint.token("k")?.token).toBe("t");
    expect(checkpoint.token("other")).toBeUndefined();
    await clock.advance(500_000);
    expect(checkpoint.token("k")).toBeUndefined();
  });

  test("Services are kept for the pods' namespaces and the master service, reduced to what env vars read", () => {
    const { checkpoint } = open();
    checkpoint.recordPods([withConfigMapAndSecret]);
    const svc = (namespace: string, name: string): Service =>
      ({ metadata: { name, namespace, uid: `u-${name}`, labels: { a: "b" } }, spec: { clusterIP: "10.0.0.1", ports: [{ port: 80, name: "http", protocol: "TCP" }] }, status: { x: 1 } }) as Service;
    checkpoint.recordServices([svc("ns", "web"), svc("other", "db"), svc("default", "kubernetes"), svc("default", "other")]);
    const kept = open().checkpoint.services();
    expect(kept?.map((s) => `${s.metadata.namespace}/${s.metadata.name}`).sort()).toEqual(["default/kubernetes", "ns/web"]);
    expect(kept?.[0]).toEqual({ metadata: { name: "kubernetes", namespace: "default", uid: "u-kubernetes" }, spec: { clusterIP: "10.0.0.1", ports: [{ port: 80, name: "http", protocol: "TCP" }] } });
  });
});
