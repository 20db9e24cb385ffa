/**
 * Issue 19 item 4, node side: bunlet's eviction manager feeds the Node's pressure conditions. A
 * bunlet joining a real cluster (scripts/cluster.sh) with a memory threshold that is always met
 * (memory.available<99%) reports MemoryPressure=True with the kubelet's reason and message, and
 * the controller-manager's node lifecycle controller taints the Node
 * node.kubernetes.io/memory-pressure:NoSchedule, as it does for a kubelet. With no pod to evict,
 * bunlet says so.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestCluster, type TestCluster } from "../../harness/cluster.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { bunletWaiter, ensureBuilt, freePort, startBunlet, type BunletProcess } from "../agent/bunlet.ts";

const NODE = "bunlet-pressure-e2e";
let cluster: TestCluster;
let ctd: TestContainerd;
let bunlet: BunletProcess | undefined;
let dir = "";
const waitFor = bunletWaiter(() => bunlet, 120_000);

beforeAll(async () => {
  ensureBuilt();
  cluster = await startTestCluster({ name: "pressure" });
  ctd = await startTestContainerd({ name: "cluster-pressure" });
  dir = mkdtempSync(join(tmpdir(), "bunlet-cluster-pressure-"));
  mkdirSync(join(dir, "manifests"));
  bunlet = await startBunlet(
    [
      `--kubeconfig=${await cluster.nodeKubeconfig(NODE)}`,
      `--container-runtime-endpoint=${ctd.endpoint}`,
      `--pod-manifest-path=${join(dir, "manifests")}`,
      `--root-dir=${join(dir, "state")}`,
      `--pod-logs-dir=${join(dir, "logs", "pods")}`,
      `--container-logs-dir=${join(dir, "logs", "containers")}`,
      `--hostname-override=${NODE}`,
      `--healthz-port=${await freePort()}`,
      "--node-status-update-frequency=2s",
      "--eviction-hard=memory.available<99%",
    ],
    await freePort(),
  );
}, 300_000);

afterAll(async () => {
  bunlet?.signal("SIGKILL");
  await bunlet?.exited;
  await ctd?.stop();
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 180_000);

async function getNode(): Promise<any> {
  const r = await cluster.kubectl(["get", "node", NODE, "-o", "json"]);
  return r.code === 0 ? JSON.parse(r.stdout) : undefined;
}

test("MemoryPressure=True with the kubelet's reason, the controller's taint, and no pod to evict", async () => {
  const node = await waitFor("MemoryPressure=True and the memory-pressure taint on the Node", async () => {
    const n = await getNode();
    const pressure = n?.status?.conditions?.find((c: any) => c.type === "MemoryPressure");
    const tainted = n?.spec?.taints?.some((t: any) => t.key === "node.kubernetes.io/memory-pressure");
    return pressure?.status === "True" && tainted ? n : undefined;
  });
  expect(node.status.conditions.find((c: any) => c.type === "MemoryPressure")).toMatchObject({ reason: "KubeletHasInsufficientMemory", message: "kubelet has insufficient memory available" });
  expect(node.status.conditions.find((c: any) => c.type === "DiskPressure")).toMatchObject({ status: "False", reason: "KubeletHasNoDiskPressure" });
  expect(node.spec.taints).toEqual(expect.arrayContaining([{ key: "node.kubernetes.io/memory-pressure", effect: "NoSchedule", timeAdded: expect.any(String) }]));
  expect(bunlet!.lines.find((l) => l.msg === "Eviction manager: eviction thresholds have been met, but no pods are active to evict")).toBeDefined();
}, 240_000);
