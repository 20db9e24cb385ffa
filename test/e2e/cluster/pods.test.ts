/**
 * Pods from the apiserver on a bunlet node of a real cluster (scripts/cluster.sh): the built
 * dist/bunlet with a node kubeconfig on a real containerd. A pod created with spec.nodeName runs
 * and `kubectl get pods` shows its true status (Running, container statuses, IPs, restarts); an
 * idle pod's status is not patched again; a crashing container shows CrashLoopBackOff; `kubectl
 * delete pod` stops the containers and then the object disappears; an apiserver outage and a
 * broken watch (410) touch no running pod; a bunlet killed and restarted adopts its pods and keeps
 * reporting their status.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { kubectlApply, kubectlJson as kubectlJsonOf } from "./kubectl.ts";
import { clusterNodeFixture } from "./fixture.ts";
import { boundTo, makePod } from "../../fixtures/pods.ts";

const NODE = "bunlet-pods";
const fx = clusterNodeFixture({ name: "pods", node: NODE, waitTimeoutMs: 120_000 });
const waitFor = fx.waitFor;

const kubectlJson = <T = any>(args: string[]) => kubectlJsonOf<T>(fx.cluster, args);
const apply = (obj: unknown) => kubectlApply(fx.cluster, obj);

/** What every pod of this file has: its namespace, its node, busybox from the node's images. */
const onNode = { namespace: fx.namespace, spec: boundTo(NODE, 3) };

const getPod = (name: string) => kubectlJson(["get", "pod", name]);
const containersOf = async (name: string) => (await fx.cri.runtime.listContainers({})).containers.filter((c) => c.labels["io.kubernetes.pod.name"] === name);
const runningIds = async (name: string) => (await containersOf(name)).filter((c) => c.state === 1).map((c) => c.id).sort();

const podIsRunningAndReady = (p: any) => p.status?.phase === "Running" && p.status.containerStatuses?.[0]?.ready === true;

/** Kills kube-apiserver and starts it again with the same command line (its watch cache starts empty). */
async function restartApiserver(): Promise<void> {
  const pidFile = join(fx.cluster.dir, "run", "kube-apiserver.pid");
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((a) => a !== "");
  process.kill(pid, "SIGKILL");
  await waitFor("the old kube-apiserver gone", () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  });
  const log = Bun.file(join(fx.cluster.dir, "logs", "kube-apiserver.restarted.log"));
  const proc = Bun.spawn(["setsid", ...argv], { stdin: "ignore", stdout: log, stderr: log });
  proc.unref();
  writeFileSync(pidFile, `${proc.pid}\n`);
  await waitFor("kube-apiserver answering again", async () => (await fx.cluster.kubectl(["get", "--raw", "/readyz"])).code === 0);
}

describe("pods from the apiserver", () => {
  test("a pod created with nodeName runs on the node", async () => {
    await waitFor("the Node Ready", async () => {
      const n = await kubectlJson(["get", "node", NODE]);
      return n.status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True");
    });
    await apply(makePod({ ...onNode, name: "web", container: { imagePullPolicy: "Never", command: ["sleep", "3600"] } }));
    await waitFor("the pod's container running in containerd", async () => (await runningIds("web")).length === 1);
    const line = fx.bunlet!.lines.find((l) => l.msg === "SyncLoop ADD" && l.source === "api");
    expect(line).toBeDefined();
  }, 180_000);

  test("kubectl get pods shows it Running with container statuses, IPs and restart counts", async () => {
    const p = await waitFor("the pod Running and Ready in the apiserver", async () => {
      const p = await getPod("web");
      return podIsRunningAndReady(p) ? p : undefined;
    });
    const [id] = await runningIds("web");
    expect(p.status.containerStatuses[0]).toMatchObject({
      name: "main",
      ready: true,
      started: true,
      restartCount: 0,
      containerID: `containerd://${id}`,
      state: { running: { startedAt: expect.any(String) } },
    });
    expect(p.status.podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(p.status.podIPs).toEqual([{ ip: p.status.podIP }]);
    expect(p.status.hostIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(p.status.qosClass).toBe("BestEffort");
    expect(p.status.conditions.map((c: any) => `${c.type}=${c.status}`)).toEqual(
      expect.arrayContaining(["PodScheduled=True", "Initialized=True", "ContainersReady=True", "Ready=True", "PodReadyToStartContainers=True"]),
    );
    const table = await fx.cluster.kubectl(["get", "pod", "web", "--no-headers"]);
    expect(table.stdout).toMatch(/^web\s+1\/1\s+Running\s+0\s/);
  }, 180_000);

  test("at rest for a minute the node neither patches its pod's status nor GETs its pod or Node (the kubelet's status manager writes nothing at rest)", async () => {
    await waitFor("the pod Running and Ready in the apiserver", async () => podIsRunningAndReady(await getPod("web")));
    // The apiserver's own request counts: web is the only pod of the cluster now, and nothing
    // else GETs a pod or a Node by name (the control plane reads through its informers).
    const requests = async () => {
      const metrics = await fx.cluster.kubectl(["get", "--raw", "/metrics"]);
      expect(metrics.code).toBe(0);
      const total = { statusPatches: 0, podGets: 0, nodeGets: 0 };
      for (const line of metrics.stdout.split("\n")) {
        if (!line.startsWith("apiserver_request_total{")) continue;
        const n = Number(line.slice(line.lastIndexOf(" ") + 1));
        const has = (label: string) => line.includes(label);
        if (has('resource="pods"') && has('subresource="status"') && has('verb="PATCH"')) total.statusPatches += n;
        if (has('resource="pods"') && has('subresource=""') && has('verb="GET"')) total.podGets += n;
        if (has('resource="nodes"') && has('subresource=""') && has('verb="GET"')) total.nodeGets += n;
      }
      return total;
    };
    // Whatever the start-up still had to say (Ready's transition) is sent by now.
    await Bun.sleep(12_000);
    const before = await requests();
    expect(before.statusPatches).toBeGreaterThan(0);
    // Six of the status sync's full resyncs and of the node status rounds (10 s each): the
    // status compared with the apiserver's copy converges, and a node status round reads the
    // watched Node instead of GETting it.
    await Bun.sleep(60_000);
    expect(await requests()).toEqual(before);
  }, 180_000);

  test("a crashing container shows CrashLoopBackOff and its restart count in the apiserver", async () => {
    await apply(makePod({ ...onNode, name: "crasher", container: { imagePullPolicy: "Never", command: ["sh", "-c", "echo bye; exit 3"] } }));
    const p = await waitFor("CrashLoopBackOff in the apiserver", async () => {
      const p = await getPod("crasher");
      return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === "CrashLoopBackOff" ? p : undefined;
    }, 180_000);
    const cs = p.status.containerStatuses[0];
    expect(cs.restartCount).toBeGreaterThanOrEqual(1);
    expect(cs.lastState.terminated).toMatchObject({ exitCode: 3, reason: "Error" });
    expect(cs.state.waiting.message).toMatch(new RegExp(`^back-off \\d+\\S* restarting failed container=main pod=crasher_${fx.namespace}\\(`));
    expect(p.status.phase).toBe("Running");
    const table = await fx.cluster.kubectl(["get", "pod", "crasher", "--no-headers"]);
    expect(table.stdout).toMatch(/^crasher\s+0\/1\s+CrashLoopBackOff\s+\d+/);
  }, 240_000);

  test("kubectl delete pod stops the containers, then the pod object disappears", async () => {
    const r = await fx.cluster.kubectl(["delete", "pod", "crasher", "--wait=false"]);
    expect(r.code).toBe(0);
    await waitFor("the pod object gone from the apiserver", async () => {
      const g = await fx.cluster.kubectl(["get", "pod", "crasher", "-o", "name"]);
      return g.code !== 0 && g.stderr.includes("NotFound");
    });
    // The object goes only once bunlet saw every container stopped.
    expect(await runningIds("crasher")).toEqual([]);
    expect(fx.bunlet!.lines.some((l) => l.msg === "SyncLoop DELETE" && (l.pods as { name?: string; namespace?: string }[]).some((p) => p.namespace === fx.namespace && p.name === "crasher"))).toBe(true);
  }, 180_000);

  test("the apiserver stopped for 30 s: nothing restarted or killed, and bunlet catches up after", async () => {
    const before = await runningIds("web");
    expect(before).toHaveLength(1);
    const pid = Number(readFileSync(join(fx.cluster.dir, "run", "kube-apiserver.pid"), "utf8").trim());
    process.kill(pid, "SIGSTOP");
    try {
      await Bun.sleep(30_000);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    await waitFor("kube-apiserver answering again", async () => (await fx.cluster.kubectl(["get", "--raw", "/readyz"])).code === 0);
    await apply(makePod({ ...onNode, name: "after-outage", container: { imagePullPolicy: "Never", command: ["sleep", "3600"] } }));
    await waitFor("a pod created after the outage Running in the apiserver", async () => podIsRunningAndReady(await getPod("after-outage")), 180_000);
    expect(await runningIds("web")).toEqual(before);
    expect((await getPod("web")).status.containerStatuses[0].restartCount).toBe(0);
  }, 400_000);

  test("a broken watch (410 Gone) relists without touching running pods", async () => {
    const before = await runningIds("web");
    // bunlet frozen misses changes; the restarted apiserver's watch cache starts after them, so
    // bunlet's watch from its last resourceVersion is too old (410) and it relists.
    process.kill(fx.bunlet!.pid, "SIGSTOP");
    try {
      for (let i = 0; i < 3; i++) {
        const r = await fx.cluster.kubectl(["label", "pod", "after-outage", `round=${i}`, "--overwrite"]);
        expect(r.code).toBe(0);
      }
      await restartApiserver();
    } finally {
      process.kill(fx.bunlet!.pid, "SIGCONT");
    }
    const logsFrom = fx.bunlet!.lines.length;
    await waitFor("bunlet relisting after the watch's resourceVersion expired", () =>
      fx.bunlet!.lines.slice(logsFrom).some((l) => l.msg === "Watch closed: the resourceVersion is too old; relisting"),
    180_000);
    await apply(makePod({ ...onNode, name: "after-relist", container: { imagePullPolicy: "Never", command: ["sleep", "3600"] } }));
    await waitFor("a pod created after the relist Running in the apiserver", async () => podIsRunningAndReady(await getPod("after-relist")), 180_000);
    expect(await runningIds("web")).toEqual(before);
    expect(fx.bunlet!.lines.slice(logsFrom).some((l) => l.msg === "SyncLoop REMOVE")).toBe(false);
  }, 400_000);

  test("bunlet killed and restarted: pods adopted, nothing restarted, statuses continue", async () => {
    const before = await runningIds("web");
    fx.bunlet!.signal("SIGKILL");
    await fx.bunlet!.exited;
    await fx.start();
    await waitFor("the restarted bunlet syncing the apiserver's pods", () => fx.bunlet!.lines.some((l) => l.msg === "SyncLoop ADD" && l.source === "api"));
    // A change after the restart reaches the apiserver: a pod's deletion completes.
    const r = await fx.cluster.kubectl(["delete", "pod", "after-relist", "--wait=false"]);
    expect(r.code).toBe(0);
    await waitFor("the deleted pod gone from the apiserver", async () => (await fx.cluster.kubectl(["get", "pod", "after-relist", "-o", "name"])).stderr.includes("NotFound"));
    expect(await runningIds("web")).toEqual(before);
    const web = await getPod("web");
    expect(podIsRunningAndReady(web)).toBe(true);
    expect(web.status.containerStatuses[0].restartCount).toBe(0);
  }, 300_000);
});
