/**
 * Issue 3's "done when": dist/bunlet with bad manifests in --pod-manifest-path logs each one by
 * file name (with the field) and keeps running the good ones. And beyond the kubelet: a good
 * manifest edited into a broken one keeps its pod running, which /pods (an annotation),
 * /healthz?verbose and bunlet_manifest_errors report. The runtime is the fake CRI, so this runs
 * the real binary without needing containerd.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PodList } from "../../../src/api/index.ts";
import { startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import { bunletWaiter, ensureBuilt, isErrorLine, freePort, startBunlet, type BunletProcess } from "./bunlet.ts";

let fake: FakeCri;
let dir = "";
let manifests = "";
let bunlet: BunletProcess;

const good = (name: string, command = ["sleep", "3600"]) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { containers: [{ name: "main", image: "docker.io/library/busybox:1.36", command }] },
  });

const waitFor = bunletWaiter(() => bunlet, 20_000);

const get = (path: string) => fetch(`http://127.0.0.1:${bunlet.readOnlyPort}${path}`);

beforeAll(async () => {
  ensureBuilt();
  fake = await startFakeCri();
  dir = mkdtempSync(join(tmpdir(), "bunlet-manifest-errors-"));
  manifests = join(dir, "manifests");
  mkdirSync(manifests);
  writeFileSync(join(manifests, "garbage.yaml"), "kind: Pod\nmetadata: {name: [unclosed\n");
  writeFileSync(join(manifests, "noimage.yaml"), JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "noimage" }, spec: { containers: [{ name: "c" }] } }));
  writeFileSync(join(manifests, "web.json"), good("web"));
  bunlet = await startBunlet(
    [
      `--container-runtime-endpoint=${fake.endpoint}`,
      `--pod-manifest-path=${manifests}`,
      `--root-dir=${join(dir, "state")}`,
      `--pod-logs-dir=${join(dir, "logs")}`,
      `--container-logs-dir=${join(dir, "containers")}`,
      "--hostname-override=node-a",
      "--file-check-frequency=1s",
      "--healthz-port=0",
    ],
    await freePort(),
  );
}, 60_000);

afterAll(async () => {
  bunlet?.signal("SIGKILL");
  await bunlet?.exited;
  await fake?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

test("each bad manifest is logged by file name and field, and the good pod runs", async () => {
  const errors = await waitFor("both bad files logged", () => {
    const files = new Set(bunlet.lines.filter(isErrorLine).map((l) => String(l.file ?? "")));
    return files.has(join(manifests, "garbage.yaml")) && files.has(join(manifests, "noimage.yaml")) ? files : undefined;
  });
  expect(errors.size).toBeGreaterThanOrEqual(2);
  const noimage = bunlet.lines.find((l) => String(l.file ?? "").endsWith("noimage.yaml"));
  expect(String(noimage?.err)).toBe(`${join(manifests, "noimage.yaml")}: spec.containers[0].image: Required value`);
  await waitFor("web running", async () => {
    const list = (await (await get("/pods")).json()) as PodList;
    return list.items.find((p) => p.metadata.name === "web-node-a" && p.status?.phase === "Running");
  });
  expect(bunlet.raw.filter((l) => l.trim() !== "")).toEqual([]);
});

test("a broken edit keeps the last good pod, annotated in /pods, listed in /healthz and counted", async () => {
  const before = fake.state.containers.filter((c) => c.state === 1).map((c) => c.id);
  writeFileSync(join(manifests, "web.json"), '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {');
  const pod = await waitFor("the annotation", async () => {
    const list = (await (await get("/pods")).json()) as PodList;
    const web = list.items.find((p) => p.metadata.name === "web-node-a");
    return web?.metadata.annotations?.["bunlet.io/manifest-error"] ? web : undefined;
  });
  expect(pod.metadata.annotations?.["bunlet.io/manifest-error"]).toStartWith(join(manifests, "web.json"));
  expect(pod.status?.phase).toBe("Running");
  const healthz = await (await get("/healthz?verbose")).text();
  expect(healthz).toContain("web.json");
  const metrics = await (await get("/metrics")).text();
  expect(metrics).toMatch(/bunlet_manifest_errors\{source="file"\} [3-9]/);
  // Relists keep the pod: nothing was stopped or started.
  await Bun.sleep(2500);
  const after = fake.state.containers.filter((c) => c.state === 1).map((c) => c.id);
  expect(after).toEqual(before);
  expect(fake.callNames().filter((n) => n === "StopContainer")).toEqual([]);
});
