/**
 * The kubelet's API objects around pods, against a real control plane (scripts/cluster.sh) and a
 * real containerd, with the built dist/bunlet as node: its events reach the apiserver
 * (`kubectl get events`), with the kubelet's reasons, messages, field paths and source; every
 * static pod has a mirror pod, made again when deleted and deleted when its manifest goes; a pod
 * asking more CPU than allocatable is rejected (Failed, OutOfcpu); a RuntimeClass picks the CRI
 * runtime handler (the test containerd's second handler, test-handler), and a missing one keeps
 * the pod from starting with the kubelet's event. Static pods but for the admission test's pod.
 */
import { describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { clusterNodeFixture } from "./fixture.ts";

const NODE = "bunlet-objects";
const fx = clusterNodeFixture({
  name: "objects",
  node: NODE,
  waitTimeoutMs: 120_000,
  manifests: true,
  beforeStart: () =>
    writeManifest("sleeper.json", "sleeper", { terminationGracePeriodSeconds: 2 }),
  flags: () => ["--file-check-frequency=1s"],
});
const waitFor = fx.waitFor;

/** A static pod of this file's namespace, its container "main" sleeping (busybox, IfNotPresent), written as file. */
function writeManifest(file: string, name: string, spec: Partial<Pod["spec"]>): void {
  const pod = makePod({ name, namespace: fx.namespace, container: { name: "main", image: BUSYBOX_IMAGE, imagePullPolicy: "IfNotPresent", command: ["sleep", "3600"] }, spec });
  writeFileSync(join(fx.manifests, file), JSON.stringify(pod));
}

async function kubectlJson<T = any>(args: string[]): Promise<T> {
  const r = await fx.cluster.kubectl([...args, "-o", "json"]);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}: ${r.stderr.trim()}`);
  return JSON.parse(r.stdout) as T;
}
const eventsAbout = async (podName: string, namespace = fx.namespace): Promise<any[]> =>
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
      involvedObject: { kind: "Pod", apiVersion: "v1", name: pod, namespace: fx.namespace, fieldPath: "spec.containers{main}" },
      source: { component: "kubelet", host: NODE },
      reportingComponent: "kubelet",
      reportingInstance: NODE,
      count: 1,
    });
    expect(byReason("Created")).toMatchObject({ type: "Normal", message: "Created container: main" });
    expect(byReason("Started")).toMatchObject({ type: "Normal", message: "Started container main" });
    // kubectl's own table shows them under the kubelet.
    const table = await fx.cluster.kubectl(["get", "events", "--field-selector", `involvedObject.name=${pod}`]);
    expect(table.stdout).toMatch(/Normal\s+Started\s+pod\/sleeper-bunlet-objects\s+Started container main/);
  }, 200_000);
});

describe("mirror pods", () => {
  const mirrorName = `sleeper-${NODE}`;
  const getMirror = async () => {
    const r = await fx.cluster.kubectl(["-n", fx.namespace, "get", "pod", mirrorName, "-o", "json"]);
    return r.code === 0 ? JSON.parse(r.stdout) : undefined;
  };

  test("a static pod has a mirror pod: the config.mirror annotation is its hash, the Node its controller", async () => {
    const mirror = await waitFor("the mirror pod", getMirror);
    const node = await kubectlJson(["get", "node", NODE]);
    const annotations = mirror.metadata.annotations;
    expect(annotations["kubernetes.io/config.mirror"]).toBe(annotations["kubernetes.io/config.hash"]);
    expect(annotations["kubernetes.io/config.source"]).toBe("file");
    expect(mirror.metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: NODE, uid: node.metadata.uid, controller: true }]);
    expect(mirror.spec.nodeName).toBe(NODE);
    // Its containers are the static pod's: nothing else runs because of it.
    const sandboxes = (await fx.cri.runtime.listPodSandbox({})).items.filter((s) => s.metadata?.name === mirrorName && s.state === 0);
    expect(sandboxes).toHaveLength(1);
    // The static pod's status is patched on its mirror pod.
    await waitFor("the mirror pod Running", async () => (await getMirror())?.status?.phase === "Running");
  }, 200_000);

  test("a deleted mirror pod is made again, and the static pod keeps running", async () => {
    const before = await waitFor("the mirror pod", getMirror);
    const running = (await fx.cri.runtime.listContainers({})).containers.filter((c) => c.labels["io.kubernetes.pod.name"] === mirrorName && c.state === 1);
    expect(running).toHaveLength(1);
    const del = await fx.cluster.kubectl(["-n", fx.namespace, "delete", "pod", mirrorName, "--wait=false"]);
    expect(del.code).toBe(0);
    const after = await waitFor("a new mirror pod", async () => {
      const m = await getMirror();
      return m && m.metadata.uid !== before.metadata.uid && !m.metadata.deletionTimestamp ? m : undefined;
    });
    expect(after.metadata.annotations["kubernetes.io/config.mirror"]).toBe(before.metadata.annotations["kubernetes.io/config.mirror"]);
    const still = (await fx.cri.runtime.listContainers({})).containers.filter((c) => c.labels["io.kubernetes.pod.name"] === mirrorName && c.state === 1);
    expect(still.map((c) => c.id)).toEqual(running.map((c) => c.id));
  }, 200_000);

  test("removing the manifest deletes the mirror pod", async () => {
    writeManifest("transient.json", "transient", { terminationGracePeriodSeconds: 1 });
    const name = `transient-${NODE}`;
    await waitFor("the transient mirror pod", async () => (await fx.cluster.kubectl(["-n", fx.namespace, "get", "pod", name])).code === 0);
    await waitFor("its container running", async () =>
      (await fx.cri.runtime.listContainers({})).containers.some((c) => c.labels["io.kubernetes.pod.name"] === name && c.state === 1),
    );
    rmSync(join(fx.dir, "manifests", "transient.json"));
    await waitFor("the mirror pod gone", async () => {
      const r = await fx.cluster.kubectl(["-n", fx.namespace, "get", "pod", name]);
      return r.code !== 0 && r.stderr.includes("NotFound");
    });
    // Its Killing event was recorded too.
    const events = await waitFor("a Killing event", async () => {
      const items = await eventsAbout(name);
      return items.some((e) => e.reason === "Killing") ? items : undefined;
    });
    expect(events.find((e) => e.reason === "Killing")).toMatchObject({ type: "Normal", message: "Stopping container main" });
  }, 200_000);
});

describe("admission", () => {
  test("a pod requesting more CPU than allocatable is Failed with OutOfcpu, its event says why, and nothing starts", async () => {
    const name = "too-big";
    const manifest = makePod({
      name,
      namespace: fx.namespace,
      container: { name: "main", image: BUSYBOX_IMAGE, imagePullPolicy: "IfNotPresent", command: ["sleep", "3600"], resources: { requests: { cpu: "10000" } } },
      spec: { nodeName: NODE, tolerations: [{ operator: "Exists" }] },
    });
    const created = await fx.cluster.kubectl(["create", "-f", "-"], { stdin: JSON.stringify(manifest) });
    expect(created.code).toBe(0);
    const pod = await waitFor("the pod Failed", async () => {
      const p = await kubectlJson(["-n", fx.namespace, "get", "pod", name]);
      return p.status?.phase === "Failed" ? p : undefined;
    });
    expect(pod.status.reason).toBe("OutOfcpu");
    expect(pod.status.message).toMatch(/^Pod was rejected: Node didn't have enough resource: cpu, requested: 10000000, used: \d+, capacity: \d+$/);
    const events = await waitFor("the OutOfcpu event", async () => {
      const items = await eventsAbout(name);
      return items.some((e) => e.reason === "OutOfcpu") ? items : undefined;
    });
    expect(events.find((e) => e.reason === "OutOfcpu")).toMatchObject({ type: "Warning", source: { component: "kubelet", host: NODE } });
    expect(events.map((e) => e.reason)).not.toContain("Pulled");
    // kubectl describe shows the event under the kubelet.
    const described = await fx.cluster.kubectl(["-n", fx.namespace, "describe", "pod", name]);
    expect(described.stdout).toMatch(/Warning\s+OutOfcpu\s+\S+\s+kubelet\s+Node didn't have enough resource: cpu/);
    const sandboxes = (await fx.cri.runtime.listPodSandbox({})).items.filter((s) => s.metadata?.name === name);
    expect(sandboxes).toHaveLength(0);
  }, 200_000);
});

describe("RuntimeClass", () => {
  test("a pod whose RuntimeClass names an existing handler runs its sandbox with that handler", async () => {
    const rc = { apiVersion: "node.k8s.io/v1", kind: "RuntimeClass", metadata: { name: "test-rc" }, handler: "test-handler" };
    const created = await fx.cluster.kubectl(["create", "-f", "-"], { stdin: JSON.stringify(rc) });
    expect(created.code).toBe(0);
    writeManifest("rc-ok.json", "rc-ok", { runtimeClassName: "test-rc", terminationGracePeriodSeconds: 1 });
    const name = `rc-ok-${NODE}`;
    const sandbox = await waitFor("the sandbox ready", async () =>
      (await fx.cri.runtime.listPodSandbox({})).items.find((s) => s.metadata?.name === name && s.state === 0),
    );
    expect(sandbox.runtimeHandler).toBe("test-handler");
    await waitFor("its container running", async () =>
      (await fx.cri.runtime.listContainers({})).containers.some((c) => c.labels["io.kubernetes.pod.name"] === name && c.state === 1),
    );
  }, 200_000);

  test("a pod naming a missing RuntimeClass never starts, and its event says why", async () => {
    writeManifest("rc-missing.json", "rc-missing", { runtimeClassName: "missing", terminationGracePeriodSeconds: 1 });
    const name = `rc-missing-${NODE}`;
    const events = await waitFor("the FailedCreatePodSandBox event", async () => {
      const items = await eventsAbout(name);
      return items.some((e) => e.reason === "FailedCreatePodSandBox") ? items : undefined;
    });
    expect(events.find((e) => e.reason === "FailedCreatePodSandBox")).toMatchObject({
      type: "Warning",
      message: 'Failed to create pod sandbox: runtimeclass.node.k8s.io "missing" not found',
      involvedObject: { kind: "Pod", name },
      source: { component: "kubelet", host: NODE },
    });
    expect((await fx.cri.runtime.listPodSandbox({})).items.filter((s) => s.metadata?.name === name)).toHaveLength(0);
    expect((await fx.cri.runtime.listContainers({})).containers.filter((c) => c.labels["io.kubernetes.pod.name"] === name)).toHaveLength(0);
  }, 200_000);
});
