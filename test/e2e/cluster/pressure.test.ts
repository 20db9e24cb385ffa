/**
 * Issue 19 item 4, node side: bunlet's eviction manager feeds the Node's pressure conditions. A
 * bunlet joining a real cluster (scripts/cluster.sh) with a memory threshold that is always met
 * (memory.available<99%) reports MemoryPressure=True with the kubelet's reason and message, and
 * the controller-manager's node lifecycle controller taints the Node
 * node.kubernetes.io/memory-pressure:NoSchedule, as it does for a kubelet. With no pod to evict,
 * bunlet says so, and the Node gets the kubelet's EvictionThresholdMet event.
 */
import { expect, test } from "bun:test";
import { clusterNodeFixture } from "./fixture.ts";

const NODE = "bunlet-pressure-e2e";
const fx = clusterNodeFixture({
  name: "pressure",
  node: NODE,
  waitTimeoutMs: 120_000,
  manifests: true,
  flags: () => ["--eviction-hard=memory.available<99%"],
});
const waitFor = fx.waitFor;

async function getNode(): Promise<any> {
  const r = await fx.cluster.kubectl(["get", "node", NODE, "-o", "json"]);
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
  expect(fx.bunlet!.lines.find((l) => l.msg === "Eviction manager: eviction thresholds have been met, but no pods are active to evict")).toBeDefined();
  // Each round that acts records the kubelet's Warning on the Node, in the default namespace.
  const event = await waitFor("the EvictionThresholdMet event", async () => {
    const r = await fx.cluster.kubectl(["get", "events", "-n", "default", "--field-selector", `involvedObject.kind=Node,involvedObject.name=${NODE},reason=EvictionThresholdMet`, "-o", "json"]);
    return r.code === 0 ? JSON.parse(r.stdout).items[0] : undefined;
  });
  expect(event).toMatchObject({ type: "Warning", message: "Attempting to reclaim memory", source: { component: "kubelet", host: NODE }, involvedObject: { kind: "Node", name: NODE, uid: NODE } });
}, 240_000);
