/**
 * Issue 19 item 4: dist/bunlet's eviction manager against a real containerd, on a standalone node
 * (static pods, so --evict-static-pods). A memory threshold set for the test
 * (memory.available<99%: always met) makes every round evict one pod. The pods first run under a
 * bunlet with the default thresholds; the bunlet restarted with the test's threshold adopts them
 * with their stats already there (a pod without stats would rank first, as in the kubelet). The BestEffort pod goes
 * first, ahead of the pod that stays within its memory request, and is reported Failed with
 * reason Evicted and the kubelet's message, in /pods, the log and kubelet_evictions.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PodList, ResourceRequirements } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { bunletWaiter, ensureBuilt, freePort, linePod, startBunlet, type BunletProcess } from "../agent/bunlet.ts";

let ctd: TestContainerd;
let dir = "";
let bunlet: BunletProcess | undefined;
const waitFor = bunletWaiter(() => bunlet, 120_000);

/** A static pod as written by hand (no namespace), its container "app" with the given resources. */
const pod = (name: string, resources?: ResourceRequirements) =>
  JSON.stringify(
    makePod({
      name,
      metadata: { namespace: undefined },
      container: { name: "app", image: BUSYBOX_IMAGE, command: ["sleep", "3600"], resources },
      spec: { terminationGracePeriodSeconds: 30 },
    }),
  );

beforeAll(async () => {
  ensureBuilt();
  ctd = await startTestContainerd({ name: "evict-e2e" });
  dir = mkdtempSync(join(tmpdir(), "bunlet-evict-e2e-"));
  const manifests = join(dir, "manifests");
  mkdirSync(manifests);
  writeFileSync(join(manifests, "best-effort.json"), pod("best-effort"));
  writeFileSync(join(manifests, "within-request.json"), pod("within-request", { requests: { memory: "16Mi" }, limits: { memory: "16Mi" } }));
  const flags = async () => [
    `--container-runtime-endpoint=${ctd.endpoint}`,
    `--pod-manifest-path=${manifests}`,
    `--root-dir=${join(dir, "state")}`,
    `--pod-logs-dir=${join(dir, "logs", "pods")}`,
    `--container-logs-dir=${join(dir, "logs", "containers")}`,
    "--hostname-override=evict-node",
    "--evict-static-pods",
    `--healthz-port=${await freePort()}`,
  ];
  bunlet = await startBunlet(await flags(), await freePort());
  await waitFor("both pods running", async () => {
    const items = (await pods()).items;
    return items.length === 2 && items.every((p) => p.status?.phase === "Running") ? true : undefined;
  });
  bunlet.signal("SIGTERM");
  await bunlet.exited;
  // --v=3: without an apiserver, events are only logged ("Event occurred"), at v=3 as the kubelet does.
  bunlet = await startBunlet([...(await flags()), "--eviction-hard=memory.available<99%", "--v=3"], await freePort());
}, 240_000);

afterAll(async () => {
  bunlet?.signal("SIGKILL");
  await bunlet?.exited;
  await ctd?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

const pods = async () => (await (await fetch(`http://127.0.0.1:${bunlet!.readOnlyPort}/pods`)).json()) as PodList;

test("under memory pressure the BestEffort pod is evicted first and reported Failed/Evicted", async () => {
  const evicted = await waitFor("the first eviction", () => bunlet!.lines.find((l) => l.msg === "Eviction manager: pod is evicted successfully"));
  expect(linePod(evicted, "default/best-effort-evict-node")).toBe(true);

  const ranked = bunlet!.lines.find((l) => l.msg === "Eviction manager: pods ranked for eviction");
  // Both pods were running when the first round ranked them: the BestEffort pod first.
  expect(ranked?.pods).toEqual([
    { name: "best-effort-evict-node", namespace: "default" },
    { name: "within-request-evict-node", namespace: "default" },
  ]);
  expect(bunlet!.lines.find((l) => l.msg === "Eviction manager: attempting to reclaim")).toMatchObject({ resourceName: "memory" });

  const status = await waitFor("the evicted pod's status Failed/Evicted", async () => {
    const p = (await pods()).items.find((i) => i.metadata.name === "best-effort-evict-node");
    return p?.status?.phase === "Failed" && p.status.reason === "Evicted" ? p.status : undefined;
  });
  expect(status.message).toMatch(/^The node was low on resource: memory\. Threshold quantity: \d+(Ki|Mi|Gi)?, available: \d+(Ki|Mi|Gi)?\. /);
  expect(status.message).toMatch(/Container app was using \d+(Ki|Mi)?, request is 0, has larger consumption of memory\. $/);
  expect(status.conditions?.find((c) => c.type === "DisruptionTarget")).toMatchObject({ status: "True", reason: "TerminationByKubelet" });
  // The kubelet's events: EvictionThresholdMet on the node, Evicted with the same message on the pod.
  const events = bunlet!.lines.filter((l) => l.msg === "Event occurred");
  expect(events.find((l) => l.reason === "EvictionThresholdMet")).toMatchObject({ kind: "Node", type: "Warning", message: "Attempting to reclaim memory" });
  expect(events.find((l) => l.reason === "Evicted" && l.object === "default/best-effort-evict-node")).toMatchObject({ kind: "Pod", type: "Warning", message: status.message });

  const metrics = await (await fetch(`http://127.0.0.1:${bunlet!.readOnlyPort}/metrics`)).text();
  expect(metrics).toMatch(/^kubelet_evictions\{eviction_signal="memory.available"\} [1-9]/m);
}, 240_000);
