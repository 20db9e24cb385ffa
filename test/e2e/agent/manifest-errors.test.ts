/**
 * Issue 3's "done when": dist/bunlet with bad manifests in --pod-manifest-path logs each one by
 * file name (with the field) and keeps running the good ones. And beyond the kubelet: a good
 * manifest edited into a broken one keeps its pod running, which /pods (an annotation),
 * /healthz?verbose and bunlet_manifest_errors report. Issue 18.6/18.7: a fix logs the recovery,
 * bunlet_rejected_manifests counts what is rejected now, a duplicate is reported once with both
 * names, a half-written file is not reported, /healthz?verbose reads as text, and the PLEG gauge
 * moves without /healthz. The runtime is the fake CRI, so this runs the real binary without
 * needing containerd.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PodList } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { bunletWaiter, ensureBuilt, isErrorLine, freePort, startBunlet, type BunletProcess } from "./bunlet.ts";

let fake: FakeCri;
let dir = "";
let manifests = "";
let bunlet: BunletProcess;

/** A good manifest as written by hand: no namespace. */
const good = (name: string, command = ["sleep", "3600"]) =>
  JSON.stringify(makePod({ name, metadata: { namespace: undefined }, container: { name: "main", image: BUSYBOX_IMAGE, command } }));

const waitFor = bunletWaiter(() => bunlet, 20_000);

const get = (path: string) => fetch(`http://127.0.0.1:${bunlet.readOnlyPort}${path}`);

beforeAll(async () => {
  ensureBuilt();
  fake = await startFakeCri();
  dir = mkdtempSync(join(tmpdir(), "bunlet-manifest-errors-"));
  manifests = join(dir, "manifests");
  mkdirSync(manifests);
  writeFileSync(join(manifests, "garbage.yaml"), "kind: Pod\nmetadata: {name: [unclosed\n");
  writeFileSync(join(manifests, "noimage.yaml"), JSON.stringify(makePod({ name: "noimage", metadata: { namespace: undefined }, spec: { containers: [{ name: "c" }] } })));
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
      // The half-written-manifest test waits for the v=4 line that says bunlet read the empty file.
      "--v=4",
    ],
    await freePort(),
  );
}, 60_000);

afterAll(async () => {
  bunlet?.signal("SIGKILL");
  await bunlet?.exited;
  await fake?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

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
  // Relists keep the pod: after two more file relists that logged the broken file, and two more
  // housekeeping passes (the runtime pods it could kill: ready sandboxes only), nothing was
  // stopped or started.
  const webErrors = () => bunlet.lines.filter((l) => isErrorLine(l) && l.file === join(manifests, "web.json")).length;
  const housekeepingLists = () =>
    fake.calls.filter((c) => c.method === "ListPodSandbox" && (c.request as { filter?: { state?: unknown } }).filter?.state !== undefined).length;
  const [errorsNow, listsNow] = [webErrors(), housekeepingLists()];
  await waitFor("two more relists of the broken file", () => webErrors() >= errorsNow + 2);
  await waitFor("two more housekeeping passes", () => housekeepingLists() >= listsNow + 2);
  const after = fake.state.containers.filter((c) => c.state === 1).map((c) => c.id);
  expect(after).toEqual(before);
  expect(fake.callNames().filter((n) => n === "StopContainer")).toEqual([]);
});

const metric = async (name: string, labels = "") => {
  const text = await (await get("/metrics")).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.split(" ")[1]);
};

/** Waits until `n` more periodic checks happened (each logs the never-decoding garbage.yaml again). */
async function relists(n: number): Promise<void> {
  const garbageLines = () => bunlet.lines.filter((l) => isErrorLine(l) && String(l.file ?? "").endsWith("garbage.yaml")).length;
  const start = garbageLines();
  await waitFor(`${n} more relists`, () => garbageLines() >= start + n);
}

test("fixing the broken manifest logs the recovery; the gauge counts only what is rejected now", async () => {
  writeFileSync(join(manifests, "web.json"), good("web", ["sleep", "1800"]));
  await waitFor("the recovery line", () => bunlet.lines.find((l) => l.msg === "Static pod manifest is valid again" && String(l.file).endsWith("web.json")));
  await waitFor("the gauge at 2 (garbage.yaml and noimage.yaml)", async () => (await metric("bunlet_rejected_manifests", '{source="file"}')) === 2);
});

test("a copy beside a manifest (web.json.bak) is reported once with both file names, and in /healthz?verbose", async () => {
  writeFileSync(join(manifests, "web.json.bak"), good("web", ["sleep", "99"]));
  const bak = join(manifests, "web.json.bak");
  const dupLines = () => bunlet.lines.filter((l) => l.msg === "Two static pod manifests define the same pod; ignoring the later file until one of them changes");
  const line = await waitFor("the duplicate warning", () => dupLines()[0]);
  expect(line.file).toBe(bak);
  expect(String(line.err)).toContain(join(manifests, "web.json"));
  await relists(2);
  expect(dupLines()).toHaveLength(1);
  const healthz = await (await get("/healthz?verbose")).text();
  // The unauthenticated ports name the file and the field, not the values (the log has those).
  expect(healthz).toContain(`[i]rejected manifest ${bak}: metadata.name: Duplicate value (see the log)\n`);
  expect(healthz).toContain("[i]rejected manifests: 3\n");
  expect(await metric("bunlet_rejected_manifests", '{source="file"}')).toBe(3);
  rmSync(bak);
  await waitFor("the gauge back at 2", async () => (await metric("bunlet_rejected_manifests", '{source="file"}')) === 2);
});

test("a half-written manifest (created empty, filled a moment later, as `cat >` does) is never reported", async () => {
  const file = join(manifests, "late.json");
  const fd = openSync(file, "w");
  // Write the moment bunlet has read the empty file: it reports a bad version only once it has
  // stayed so for a second, which waiting for a periodic relist (also every second) could outlast.
  await waitFor("the empty file read", () =>
    bunlet.lines.find((l) => l.msg === "Static pod manifest does not decode yet; reporting it if it stays so" && l.file === file),
  );
  writeSync(fd, good("late"));
  closeSync(fd);
  await waitFor("late running", async () => {
    const list = (await (await get("/pods")).json()) as PodList;
    return list.items.find((p) => p.metadata.name === "late-node-a" && p.status?.phase === "Running");
  });
  await relists(2);
  // component-base's JSON tells a warning from an info line by nothing: no line at v=0 (an error
  // has no v) names the file. The "does not decode yet" line is at v=4, above this bunlet's --v=2.
  expect(bunlet.lines.filter((l) => !(Number(l.v) > 0) && l.file === file)).toEqual([]);
});

test("/healthz?verbose reads as text: the PLEG's mode, since when, why and how often it relists", async () => {
  const healthz = await (await get("/healthz?verbose")).text();
  expect(healthz).toMatch(/\n\[i\]pleg: (evented|generic) mode since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \([0-9hms.]+ ago\); reason: [^\n]+; relisting every [0-9hms.]+/);
  expect(healthz).not.toContain('{"mode"');
});

test("kubelet_pleg_last_seen_seconds moves while nobody asks /healthz", async () => {
  const first = await metric("kubelet_pleg_last_seen_seconds");
  expect(first).toBeGreaterThan(0);
  await waitFor("the gauge to move", async () => ((await metric("kubelet_pleg_last_seen_seconds")) ?? 0) > first!);
});
