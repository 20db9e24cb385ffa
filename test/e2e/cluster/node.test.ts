/**
 * bunlet as a node of a real cluster (scripts/cluster.sh): the built dist/bunlet with a node
 * kubeconfig (system:node:<name>, so the Node authorizer and NodeRestriction apply) on a real
 * containerd. It registers, `kubectl get node` shows it Ready with capacity, addresses and
 * nodeInfo, its Lease is renewed, a frozen containerd makes it NotReady with the kubelet's reason
 * and Ready again after, and an apiserver that stops answering for a while restarts or kills no
 * pod: bunlet logs what failed and reports again when the apiserver is back.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { clusterNodeFixture } from "./fixture.ts";

const NODE = "bunlet-e2e";
const fx = clusterNodeFixture({
  name: "node",
  node: NODE,
  waitTimeoutMs: 90_000,
  manifests: true,
  beforeStart: (fx) =>
    writeFileSync(
      join(fx.manifests, "sleeper.json"),
      JSON.stringify(
        makePod({ name: "sleeper", namespace: fx.namespace, container: { name: "main", image: BUSYBOX_IMAGE, command: ["sleep", "3600"] }, spec: { terminationGracePeriodSeconds: 2 } }),
      ),
    ),
  flags: () => ["--node-labels=node.kubernetes.io/e2e=yes", "--register-with-taints=example.com/e2e=yes:NoSchedule"],
});
const waitFor = fx.waitFor;

async function kubectlJson<T = any>(args: string[]): Promise<T> {
  const r = await fx.cluster.kubectl([...args, "-o", "json"]);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}: ${r.stderr.trim()}`);
  return JSON.parse(r.stdout) as T;
}
const getNode = () => kubectlJson(["get", "node", NODE]);
const ready = (node: any) => node.status?.conditions?.find((c: any) => c.type === "Ready");
const sleeperContainers = async () => (await fx.cri.runtime.listContainers({})).containers.filter((c) => c.labels["io.kubernetes.pod.name"] === `sleeper-${NODE}`);

describe("bunlet joins a real cluster", () => {
  test("it registers; kubectl shows it Ready with labels, taints, capacity, addresses and nodeInfo", async () => {
    const node = await waitFor("the Node Ready", async () => {
      const n = await getNode();
      return ready(n)?.status === "True" ? n : undefined;
    });
    expect(ready(node)).toMatchObject({ reason: "KubeletReady", message: "kubelet is posting ready status" });
    expect(node.metadata.labels).toMatchObject({ "kubernetes.io/hostname": NODE, "kubernetes.io/os": "linux", "node.kubernetes.io/e2e": "yes" });
    // (the node lifecycle controller's node.kubernetes.io/not-ready taint may still be there for a moment)
    expect(node.spec.taints).toEqual(expect.arrayContaining([{ key: "example.com/e2e", value: "yes", effect: "NoSchedule" }]));
    expect(Object.keys(node.status.capacity)).toEqual(expect.arrayContaining(["cpu", "memory", "pods", "ephemeral-storage"]));
    expect(node.status.capacity.pods).toBe("110");
    expect(node.status.addresses).toEqual([
      { type: "InternalIP", address: expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/) },
      { type: "Hostname", address: NODE },
    ]);
    expect(node.status.daemonEndpoints.kubeletEndpoint.Port).toBe(fx.bunlet!.kubeletPort);
    expect(node.status.nodeInfo).toMatchObject({
      machineID: readFileSync("/etc/machine-id", "utf8").trim(),
      bootID: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
      operatingSystem: "linux",
      containerRuntimeVersion: expect.stringMatching(/^containerd:\/\/\d/),
      kubeletVersion: expect.stringMatching(/^v1\.\d+\.\d+$/),
    });
    expect(node.status.conditions.map((c: any) => `${c.type}=${c.status}:${c.reason}`)).toEqual(
      expect.arrayContaining(["MemoryPressure=False:KubeletHasSufficientMemory", "DiskPressure=False:KubeletHasNoDiskPressure", "PIDPressure=False:KubeletHasSufficientPID"]),
    );
    // kubectl's own table agrees.
    const table = await fx.cluster.kubectl(["get", "node", NODE, "--no-headers"]);
    expect(table.stdout).toMatch(new RegExp(`^${NODE}\\s+Ready\\s`));
  }, 120_000);

  test("its Lease in kube-node-lease is held by the node, owned by the Node, and renewed", async () => {
    const first = await waitFor("the Lease owned by the Node", async () => {
      const l = await kubectlJson(["-n", "kube-node-lease", "get", "lease", NODE]);
      return l.metadata.ownerReferences?.length ? l : undefined;
    });
    const node = await getNode();
    expect(first.spec).toMatchObject({ holderIdentity: NODE, leaseDurationSeconds: 40 });
    expect(first.metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: NODE, uid: node.metadata.uid }]);
    const renewed = await waitFor("a renewal", async () => {
      const l = await kubectlJson(["-n", "kube-node-lease", "get", "lease", NODE]);
      return Date.parse(l.spec.renewTime) > Date.parse(first.spec.renewTime) ? l : undefined;
    }, 120_000);
    await waitFor("another renewal", async () => {
      const l = await kubectlJson(["-n", "kube-node-lease", "get", "lease", NODE]);
      return Date.parse(l.spec.renewTime) > Date.parse(renewed.spec.renewTime);
    }, 120_000);
    // Renewals are merge patches with the resourceVersion read from the protobuf answer: a wrong
    // one would be a 409 and the fallback's log lines.
    expect(fx.bunlet!.lines.filter((l) => String(l.msg).startsWith("Failed to update the") && String(l.msg).includes("lease"))).toEqual([]);
  }, 150_000);

  test("a frozen containerd makes the node NotReady with the kubelet's reason, and Ready again after", async () => {
    await waitFor("the static pod's container running", async () => (await sleeperContainers()).some((c) => c.state === 1));
    const pid = fx.ctd.managed.pid!;
    process.kill(pid, "SIGSTOP");
    try {
      const down = await waitFor("Ready=False", async () => {
        const r = ready(await getNode());
        return r?.status === "False" ? r : undefined;
      }, 120_000);
      expect(down.reason).toBe("KubeletNotReady");
      expect(down.message).toContain("container runtime is down");
    } finally {
      process.kill(pid, "SIGCONT");
    }
    const up = await waitFor("Ready=True again", async () => {
      const r = ready(await getNode());
      return r?.status === "True" ? r : undefined;
    }, 120_000);
    expect(up.reason).toBe("KubeletReady");
  }, 300_000);

  test("the apiserver stopped for a while: no pod is restarted or killed, failures are logged, status resumes after", async () => {
    const before = (await sleeperContainers()).filter((c) => c.state === 1).map((c) => c.id);
    expect(before).toHaveLength(1);
    const apiserverPid = Number(readFileSync(join(fx.cluster.dir, "run", "kube-apiserver.pid"), "utf8").trim());
    const logsBefore = fx.bunlet!.lines.length;
    process.kill(apiserverPid, "SIGSTOP");
    try {
      // The Lease is the heartbeat that notices first: the status round reads the watched Node
      // and, with nothing changed, has nothing to send for up to 5 minutes.
      await waitFor("bunlet logging a failed lease renewal", () => fx.bunlet!.lines.slice(logsBefore).some((l) => l.msg === "Failed to update the node lease"), 120_000);
    } finally {
      process.kill(apiserverPid, "SIGCONT");
    }
    const resumedAt = Date.now();
    await waitFor("a lease renewal after the apiserver came back", async () => {
      const l = await kubectlJson(["-n", "kube-node-lease", "get", "lease", NODE]);
      return Date.parse(l.spec.renewTime) >= resumedAt;
    }, 120_000);
    await waitFor("the node Ready after the outage", async () => ready(await getNode())?.status === "True", 120_000);
    const after = (await sleeperContainers()).filter((c) => c.state === 1).map((c) => c.id);
    expect(after).toEqual(before);
    expect((await sleeperContainers()).length).toBe(1);
  }, 400_000);
});
