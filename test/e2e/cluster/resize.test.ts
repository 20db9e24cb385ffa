/**
 * In-place pod resize and observedGeneration on a bunlet node of a real cluster
 * (scripts/cluster.sh): `kubectl patch pod --subresource resize` raises a running container's
 * CPU and memory without a restart (the container's cgroup files and its status both show it,
 * restartCount stays 0); a resize that does not fit next to the other pods is PodResizePending
 * with reason Deferred until room is made; one beyond the node's allocatable is refused by the
 * apiserver; RestartContainer restarts the container instead; the allocation survives a bunlet
 * restart; observedGeneration follows a spec update; and an idle resized pod's status is not
 * patched again.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { testCgroupRoot } from "../../harness/cgroups.ts";
import { kubectlApply, kubectlJson as kubectlJsonOf } from "./kubectl.ts";
import { clusterNodeFixture } from "./fixture.ts";
import type { Container } from "../../../src/api/index.ts";
import { boundTo, makePod } from "../../fixtures/pods.ts";

const NODE = "bunlet-resize";
const fx = clusterNodeFixture({ name: "resize", node: NODE, waitTimeoutMs: 120_000 });
const waitFor = fx.waitFor;
const kubectlJson = <T = any>(args: string[]) => kubectlJsonOf<T>(fx.cluster, args);

interface Resources {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
}

/** What every pod of this file has: its namespace, its node, busybox from the node's images, sleeping, with these resources. */
const onNode = (name: string, resources: Resources, resizePolicy?: Container["resizePolicy"]) =>
  makePod({ name, namespace: fx.namespace, spec: boundTo(NODE), container: { imagePullPolicy: "Never", resources, ...(resizePolicy && { resizePolicy }) } });

const getPod = (name: string) => kubectlJson(["get", "pod", name]);

async function resize(name: string, resources: Resources): Promise<{ code: number; stderr: string }> {
  const patch = JSON.stringify({ spec: { containers: [{ name: "main", resources }] } });
  return fx.cluster.kubectl(["patch", "pod", name, "--subresource", "resize", "--type", "strategic", "-p", patch]);
}

async function runningContainerId(name: string): Promise<string> {
  const list = await fx.cri.runtime.listContainers({});
  const c = list.containers.find((c) => c.labels["io.kubernetes.pod.name"] === name && c.state === 1);
  if (!c) throw new Error(`no running container of pod ${name}`);
  return c.id;
}

/** The container's own cgroup files, read inside it (this host has cgroup v1; v2 names as fallback). */
async function cgroupValues(name: string): Promise<{ quota: string; shares: string; memory: string }> {
  const containerId = await runningContainerId(name);
  const script =
    "if [ -f /sys/fs/cgroup/cpu.max ]; then cat /sys/fs/cgroup/cpu.max; cat /sys/fs/cgroup/cpu.weight; cat /sys/fs/cgroup/memory.max; " +
    "else cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us; cat /sys/fs/cgroup/cpu/cpu.shares; cat /sys/fs/cgroup/memory/memory.limit_in_bytes; fi";
  const r = await fx.cri.runtime.execSync({ containerId, cmd: ["sh", "-c", script], timeout: 20n });
  const [quota = "", shares = "", memory = ""] = new TextDecoder().decode(r.stdout).trim().split("\n");
  return { quota, shares, memory };
}

/** The pod cgroup's CPU quota and memory limit on the host (cgroupfs driver, this node's test cgroup root). */
function podCgroupValues(uid: string, qos = "burstable"): { quota: string; memory: string } {
  const path = join(testCgroupRoot(join(fx.dir, "state")), "kubepods", qos, `pod${uid}`);
  const v2 = existsSync("/sys/fs/cgroup/cgroup.controllers");
  const read = (file: string) => readFileSync(file, "utf8").trim();
  return v2
    ? { quota: read(join("/sys/fs/cgroup", path, "cpu.max")).split(" ")[0]!, memory: read(join("/sys/fs/cgroup", path, "memory.max")) }
    : { quota: read(join("/sys/fs/cgroup/cpu", path, "cpu.cfs_quota_us")), memory: read(join("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes")) };
}

const resizeConditions = (p: any) => (p.status?.conditions ?? []).filter((c: any) => c.type === "PodResizePending" || c.type === "PodResizeInProgress");

const before: Resources = { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "200m", memory: "128Mi" } };
const after: Resources = { requests: { cpu: "150m", memory: "96Mi" }, limits: { cpu: "300m", memory: "192Mi" } };

describe("in-place pod resize", () => {
  test("a running pod reports its allocated resources, its resources and the generation it observed", async () => {
    await waitFor("the Node Ready", async () => {
      const n = await kubectlJson(["get", "node", NODE]);
      return n.status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True");
    });
    await kubectlApply(fx.cluster, onNode("grow", before));
    const p = await waitFor("the pod Running and Ready", async () => {
      const p = await getPod("grow");
      return p.status?.containerStatuses?.[0]?.ready ? p : undefined;
    });
    expect(p.metadata.generation).toBe(1);
    expect(p.status.observedGeneration).toBe(1);
    for (const c of p.status.conditions) expect({ type: c.type, observedGeneration: c.observedGeneration }).toEqual({ type: c.type, observedGeneration: 1 });
    expect(p.status.containerStatuses[0].allocatedResources).toEqual(before.requests);
    expect(p.status.containerStatuses[0].resources).toEqual(before);
    expect(await cgroupValues("grow")).toEqual({ quota: "20000", shares: "102", memory: String(128 * 1024 * 1024) });
    expect(podCgroupValues(p.metadata.uid)).toEqual({ quota: "20000", memory: String(128 * 1024 * 1024) });
  }, 180_000);

  test("kubectl patch --subresource resize raises CPU and memory in place: cgroups, status, no restart", async () => {
    const id = await runningContainerId("grow");
    const r = await resize("grow", after);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const p = await waitFor("the status showing the new resources, the resize done", async () => {
      const p = await getPod("grow");
      const cs = p.status?.containerStatuses?.[0];
      const done = p.status?.observedGeneration === 2 && resizeConditions(p).length === 0 && Bun.deepEquals(cs?.resources, after);
      return done ? p : undefined;
    });
    expect(p.metadata.generation).toBe(2);
    expect(p.status.containerStatuses[0].allocatedResources).toEqual(after.requests);
    expect(p.status.containerStatuses[0].restartCount).toBe(0);
    expect(p.status.containerStatuses[0].containerID).toBe(`containerd://${id}`);
    expect(await runningContainerId("grow")).toBe(id);
    expect(await cgroupValues("grow")).toEqual({ quota: "30000", shares: "153", memory: String(192 * 1024 * 1024) });
    // The pod cgroup grew with it (before the container: the container's limit must fit in it).
    expect(podCgroupValues(p.metadata.uid)).toEqual({ quota: "30000", memory: String(192 * 1024 * 1024) });
    // The node said what it did, as the kubelet says it.
    const events = await kubectlJson(["get", "events", "--field-selector", "involvedObject.name=grow"]);
    const reasons = events.items.map((e: any) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(["ResizeStarted", "ResizeCompleted"]));
    const started = events.items.find((e: any) => e.reason === "ResizeStarted");
    expect(started.message).toBe(
      'Pod resize started: {"containers":[{"name":"main","resources":{"limits":{"cpu":"300m","memory":"192Mi"},"requests":{"cpu":"150m","memory":"96Mi"}}}],"generation":2}',
    );
  }, 180_000);

  test("the allocation is kept in <root-dir> and survives a bunlet restart: the resized container keeps running as it is", async () => {
    const state = join(fx.dir, "state");
    const allocated = JSON.parse(readFileSync(join(state, "allocated_pods_state"), "utf8"));
    expect(allocated.kind).toBe("AllocatedPods");
    const uid = (await getPod("grow")).metadata.uid;
    expect(allocated.items.find((e: any) => e.uid === uid).containers.main).toEqual(after);
    expect(existsSync(join(state, "actuated_pods_state"))).toBe(true);
    const id = await runningContainerId("grow");
    fx.bunlet!.signal("SIGKILL");
    await fx.bunlet!.exited;
    await fx.start();
    await waitFor("bunlet synced the pod again", () => fx.bunlet!.lines.some((l) => l.msg === "SyncLoop ADD" && l.source === "api"));
    // Long enough for several syncs: nothing is resized or restarted.
    await Bun.sleep(5_000);
    const p = await getPod("grow");
    expect(await runningContainerId("grow")).toBe(id);
    expect(p.status.containerStatuses[0].restartCount).toBe(0);
    expect(p.status.containerStatuses[0].resources).toEqual(after);
    expect(resizeConditions(p)).toEqual([]);
    expect(await cgroupValues("grow")).toEqual({ quota: "30000", shares: "153", memory: String(192 * 1024 * 1024) });
  }, 180_000);

  test("an idle resized pod's status is not patched again", async () => {
    const patches = async () => {
      const metrics = await fx.cluster.kubectl(["get", "--raw", "/metrics"]);
      let n = 0;
      for (const line of metrics.stdout.split("\n")) {
        if (line.startsWith("apiserver_request_total{") && line.includes('resource="pods"') && line.includes('subresource="status"') && line.includes('verb="PATCH"')) {
          n += Number(line.slice(line.lastIndexOf(" ") + 1));
        }
      }
      return n;
    };
    const first = await patches();
    await Bun.sleep(25_000);
    expect(await patches()).toBe(first);
  }, 120_000);

  test("a resize that does not fit next to the other pods is Deferred, and applied once room is made", async () => {
    const node = await kubectlJson(["get", "node", NODE]);
    const allocatable = BigInt(node.status.allocatable.cpu.endsWith("m") ? node.status.allocatable.cpu.slice(0, -1) : Number(node.status.allocatable.cpu) * 1000);
    // A filler takes what is left but 100m; then "grow" asks for 200m more than it has.
    const filler = allocatable - 150n - 100n;
    await kubectlApply(fx.cluster, onNode("filler", { requests: { cpu: `${filler}m` } }));
    await waitFor("the filler running", async () => (await getPod("filler")).status?.containerStatuses?.[0]?.ready === true);
    const r = await resize("grow", { requests: { cpu: "350m", memory: "96Mi" }, limits: { cpu: "400m", memory: "192Mi" } });
    expect(r.code).toBe(0);
    const pending = await waitFor("PodResizePending Deferred", async () => {
      const p = await getPod("grow");
      return resizeConditions(p).find((c: any) => c.type === "PodResizePending");
    });
    expect(pending).toMatchObject({
      type: "PodResizePending",
      status: "True",
      reason: "Deferred",
      observedGeneration: 3,
      message: `Node didn't have enough resource: cpu, requested: 350, used: ${filler + 0n}, capacity: ${allocatable}`,
    });
    // Not applied: the status still shows the allocation.
    expect((await getPod("grow")).status.containerStatuses[0].allocatedResources).toEqual(after.requests);
    const events = await kubectlJson(["get", "events", "--field-selector", "involvedObject.name=grow,reason=ResizeDeferred"]);
    expect(events.items[0]?.type).toBe("Warning");
    expect(events.items[0]?.message).toStartWith("Pod resize OutOfcpu: ");

    await fx.cluster.kubectl(["delete", "pod", "filler", "--wait=true"]);
    const p = await waitFor("the deferred resize applied once the filler is gone", async () => {
      const p = await getPod("grow");
      return resizeConditions(p).length === 0 && p.status.containerStatuses[0].resources?.requests?.cpu === "350m" ? p : undefined;
    });
    expect(p.status.containerStatuses[0].restartCount).toBe(0);
    expect((await cgroupValues("grow")).quota).toBe("40000");
    expect(podCgroupValues(p.metadata.uid).quota).toBe("40000");
  }, 240_000);

  test("a resize beyond the node's allocatable is refused by the apiserver (PodResizeValidator), not by the node", async () => {
    const r = await resize("grow", { requests: { cpu: "1000", memory: "96Mi" }, limits: { cpu: "1000", memory: "192Mi" } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("node didn't have enough allocatable resources");
  }, 60_000);

  test("resizePolicy RestartContainer restarts the container with the new memory", async () => {
    await kubectlApply(fx.cluster, onNode("restart", before, [{ resourceName: "memory", restartPolicy: "RestartContainer" }]));
    await waitFor("the pod Running and Ready", async () => (await getPod("restart")).status?.containerStatuses?.[0]?.ready === true);
    const id = await runningContainerId("restart");
    expect((await resize("restart", { ...before, limits: { cpu: "200m", memory: "160Mi" } })).code).toBe(0);
    const p = await waitFor("the container restarted with the new limit", async () => {
      const p = await getPod("restart");
      const cs = p.status?.containerStatuses?.[0];
      return cs?.restartCount === 1 && cs.ready && cs.resources?.limits?.memory === "160Mi" && resizeConditions(p).length === 0 ? p : undefined;
    });
    expect(p.status.containerStatuses[0].containerID).not.toBe(`containerd://${id}`);
    expect((await cgroupValues("restart")).memory).toBe(String(160 * 1024 * 1024));
  }, 180_000);

  test("a memory limit decrease below what the container uses is refused: PodResizeInProgress Error, nothing changed", async () => {
    const mem: Resources = { requests: { memory: "64Mi" }, limits: { memory: "64Mi" } };
    const p = onNode("mem", mem);
    // 20 MB in the pod's tmpfs /dev/shm, charged to the container's memory cgroup (no swap: it stays).
    p.spec.containers[0]!.command = ["sh", "-c", "head -c 20000000 /dev/zero > /dev/shm/fill; sleep 3600"];
    await kubectlApply(fx.cluster, p);
    await waitFor("the pod Running and Ready", async () => (await getPod("mem")).status?.containerStatuses?.[0]?.ready === true);
    const id = await runningContainerId("mem");
    await Bun.sleep(3_000);
    expect((await getPod("mem")).status.containerStatuses[0].restartCount).toBe(0);
    expect((await resize("mem", { requests: { memory: "10Mi" }, limits: { memory: "10Mi" } })).code).toBe(0);
    // Either the node refuses it (the condition) or, wrongly, applies it (the status shows 10Mi).
    const outcome = await waitFor("the resize refused or applied", async () => {
      const p = await getPod("mem");
      const error = resizeConditions(p).find((c: any) => c.type === "PodResizeInProgress" && c.reason === "Error");
      if (error) return { error };
      const applied = p.status.containerStatuses[0].resources?.limits?.memory === "10Mi" && resizeConditions(p).length === 0;
      return applied ? { applied: p.status } : undefined;
    });
    expect(outcome).toHaveProperty("error");
    const cond = outcome.error;
    // The pod cgroup's limit would go below the pod's usage too: both, aggregated as the kubelet does.
    expect(cond.message).toMatch(
      /^cannot decrease memory limits: \[attempting to set pod memory limit \(10485760\) below current usage \(\d+\), attempting to set container "main" memory limit \(10485760\) below current usage \(\d+\)\]$/,
    );
    expect((await cgroupValues("mem")).memory).toBe(String(64 * 1024 * 1024));
    expect((await getPod("mem")).status.containerStatuses[0].resources.limits.memory).toBe("64Mi");
    // Back to what it has: the error clears, nothing restarted.
    expect((await resize("mem", mem)).code).toBe(0);
    await waitFor("the resize conditions gone", async () => resizeConditions(await getPod("mem")).length === 0);
    expect(await runningContainerId("mem")).toBe(id);
  }, 180_000);

  test("observedGeneration follows a spec update", async () => {
    const r = await fx.cluster.kubectl(["patch", "pod", "restart", "--type", "merge", "-p", JSON.stringify({ spec: { activeDeadlineSeconds: 3600 } })]);
    expect(r.code).toBe(0);
    const p = await waitFor("observedGeneration caught up", async () => {
      const p = await getPod("restart");
      return p.status?.observedGeneration === p.metadata.generation ? p : undefined;
    });
    expect(p.metadata.generation).toBe(3);
    for (const c of p.status.conditions) expect({ type: c.type, observedGeneration: c.observedGeneration }).toEqual({ type: c.type, observedGeneration: 3 });
  }, 120_000);
});
