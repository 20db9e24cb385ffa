/**
 * Pods from the apiserver on a bunlet node of a real cluster (scripts/cluster.sh): the built
 * dist/bunlet with a node kubeconfig on a real containerd. A pod created with spec.nodeName runs
 * and `kubectl get pods` shows its true status (Running, container statuses, IPs, restarts); a
 * crashing container shows CrashLoopBackOff; `kubectl delete pod` stops the containers and then
 * the object disappears; an apiserver outage and a broken watch (410) touch no running pod; a
 * bunlet killed and restarted adopts its pods and keeps reporting their status.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { startTestCluster, type TestCluster } from "../../harness/cluster.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { bunletWaiter, ensureBuilt, freePort, startBunlet, type BunletProcess } from "../agent/bunlet.ts";

const NODE = "bunlet-pods";
let cluster: TestCluster;
let ctd: TestContainerd;
let cri: CriClient;
let bunlet: BunletProcess | undefined;
let dir = "";
let kubeconfig = "";
let healthzPort = 0;
const waitFor = bunletWaiter(() => bunlet, 120_000);

async function start(): Promise<BunletProcess> {
  return startBunlet(
    [
      `--kubeconfig=${kubeconfig}`,
      `--container-runtime-endpoint=${ctd.endpoint}`,
      `--root-dir=${join(dir, "state")}`,
      `--pod-logs-dir=${join(dir, "logs", "pods")}`,
      `--container-logs-dir=${join(dir, "logs", "containers")}`,
      `--hostname-override=${NODE}`,
      `--healthz-port=${healthzPort}`,
      "--node-status-update-frequency=2s",
    ],
    await freePort(),
  );
}

beforeAll(async () => {
  ensureBuilt();
  cluster = await startTestCluster({ name: "pods" });
  ctd = await startTestContainerd({ name: "cluster-pods" });
  cri = createCriClient({ endpoint: ctd.endpoint });
  dir = mkdtempSync(join(tmpdir(), "bunlet-cluster-pods-"));
  kubeconfig = await cluster.nodeKubeconfig(NODE);
  healthzPort = await freePort();
  bunlet = await start();
}, 300_000);

afterAll(async () => {
  bunlet?.signal("SIGKILL");
  await bunlet?.exited;
  cri?.close();
  await ctd?.stop();
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 180_000);

async function kubectlJson<T = any>(args: string[]): Promise<T> {
  const r = await cluster.kubectl([...args, "-o", "json"]);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}: ${r.stderr.trim()}`);
  return JSON.parse(r.stdout) as T;
}

async function apply(obj: unknown): Promise<void> {
  const r = await cluster.kubectl(["apply", "-f", "-"], { stdin: JSON.stringify(obj) });
  if (r.code !== 0) throw new Error(`kubectl apply exited ${r.code}: ${r.stderr.trim()}`);
}

function pod(name: string, command: string[], extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 3,
      // The node's not-ready taint may be there for a moment after registration.
      tolerations: [{ operator: "Exists" }],
      // The service account token volume (projected) is the volumes work's; these pods need no token.
      automountServiceAccountToken: false,
      containers: [{ name: "main", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command }],
      ...extra,
    },
  };
}

const getPod = (name: string) => kubectlJson(["get", "pod", name]);
const containersOf = async (name: string) => (await cri.runtime.listContainers({})).containers.filter((c) => c.labels["io.kubernetes.pod.name"] === name);
const runningIds = async (name: string) => (await containersOf(name)).filter((c) => c.state === 1).map((c) => c.id).sort();

describe("pods from the apiserver", () => {
  test("a pod created with nodeName runs on the node", async () => {
    await waitFor("the Node Ready", async () => {
      const n = await kubectlJson(["get", "node", NODE]);
      return n.status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True");
    });
    await apply(pod("web", ["sleep", "3600"]));
    await waitFor("the pod's container running in containerd", async () => (await runningIds("web")).length === 1);
    const line = bunlet!.lines.find((l) => l.msg === "SyncLoop ADD" && l.source === "api");
    expect(line).toBeDefined();
  }, 180_000);
});
