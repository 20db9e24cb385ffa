/**
 * The kubelet's API objects around pods, against a real control plane (scripts/cluster.sh) and a
 * real containerd, with the built dist/bunlet as node: its events reach the apiserver
 * (`kubectl get events`), with the kubelet's reasons, messages, field paths and source.
 * The pods are static pods: the kubelet records events for them as for any pod.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { startTestCluster, type TestCluster } from "../../harness/cluster.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { bunletWaiter, ensureBuilt, freePort, startBunlet, type BunletProcess } from "../agent/bunlet.ts";

const NODE = "bunlet-objects";
let cluster: TestCluster;
let ctd: TestContainerd;
let cri: CriClient;
let bunlet: BunletProcess | undefined;
let dir = "";
const waitFor = bunletWaiter(() => bunlet, 120_000);

function writeManifest(file: string, pod: object): void {
  writeFileSync(join(dir, "manifests", file), JSON.stringify({ apiVersion: "v1", kind: "Pod", ...pod }));
}

beforeAll(async () => {
  ensureBuilt();
  cluster = await startTestCluster({ name: "objects" });
  ctd = await startTestContainerd({ name: "cluster-objects" });
  cri = createCriClient({ endpoint: ctd.endpoint });
  dir = mkdtempSync(join(tmpdir(), "bunlet-cluster-objects-"));
  mkdirSync(join(dir, "manifests"));
  writeManifest("sleeper.json", {
    metadata: { name: "sleeper", namespace: "default" },
    spec: { terminationGracePeriodSeconds: 2, containers: [{ name: "main", image: BUSYBOX_IMAGE, imagePullPolicy: "IfNotPresent", command: ["sleep", "3600"] }] },
  });
  const kubeconfig = await cluster.nodeKubeconfig(NODE);
  bunlet = await startBunlet(
    [
      `--kubeconfig=${kubeconfig}`,
      `--container-runtime-endpoint=${ctd.endpoint}`,
      `--pod-manifest-path=${join(dir, "manifests")}`,
      "--file-check-frequency=1s",
      `--root-dir=${join(dir, "state")}`,
      `--pod-logs-dir=${join(dir, "logs", "pods")}`,
      `--container-logs-dir=${join(dir, "logs", "containers")}`,
      `--hostname-override=${NODE}`,
      `--healthz-port=${await freePort()}`,
      "--node-status-update-frequency=2s",
    ],
    await freePort(),
  );
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
const eventsAbout = async (podName: string, namespace = "default"): Promise<any[]> =>
  (await kubectlJson(["-n", namespace, "get", "events", "--field-selector", `involvedObject.name=${podName}`])).items;

describe("events", () => {
  test("a static pod's start is in kubectl get events with the kubelet's reasons, messages, field paths and source", async () => {
    const pod = `sleeper-${NODE}`;
    const events = await waitFor("Pulled, Created and Started events", async () => {
      const items = await eventsAbout(pod);
      const reasons = items.map((e) => e.reason);
      return ["Pulled", "Created", "Started"].every((r) => reasons.includes(r)) ? items : undefined;
    });
    const byReason = (r: string) => events.find((e) => e.reason === r);
    expect(byReason("Pulled")).toMatchObject({
      type: "Normal",
      message: `Container image "${BUSYBOX_IMAGE}" already present on machine and can be accessed by the pod`,
      involvedObject: { kind: "Pod", apiVersion: "v1", name: pod, namespace: "default", fieldPath: "spec.containers{main}" },
      source: { component: "kubelet", host: NODE },
      reportingComponent: "kubelet",
      reportingInstance: NODE,
      count: 1,
    });
    expect(byReason("Created")).toMatchObject({ type: "Normal", message: "Created container: main" });
    expect(byReason("Started")).toMatchObject({ type: "Normal", message: "Started container main" });
    // kubectl's own table shows them under the kubelet.
    const table = await cluster.kubectl(["get", "events", "--field-selector", `involvedObject.name=${pod}`]);
    expect(table.stdout).toMatch(/Normal\s+Started\s+pod\/sleeper-bunlet-objects\s+Started container main/);
  }, 200_000);
});
