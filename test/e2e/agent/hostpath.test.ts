/**
 * hostPath `type` checks (issue 18.1) with dist/bunlet on a real containerd: `type: File` on a
 * missing path keeps the pod Pending in ContainerCreating with the kubelet's message in the log,
 * creates no sandbox and nothing on the host (containerd would otherwise create the bind source
 * as a directory); once the file exists the pod starts. DirectoryOrCreate creates its directory.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod, PodList } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { labels } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { agentFixture } from "./bunlet.ts";

const STEP_MS = 180_000;
const fx = agentFixture({ name: "hostpath", hostname: "hp-node", waitTimeoutMs: 45_000, startInBeforeAll: (f) => mkdirSync(join(f.dir, "host")) });
const { waitFor } = fx;
const host = () => join(fx.dir, "host");

function hostPathPod(name: string, path: string, type: string, mountPath: string): Pod {
  return makePod({
    name,
    namespace: "default",
    container: { name: "main", image: BUSYBOX_IMAGE, command: ["sleep", "3600"], volumeMounts: [{ name: "data", mountPath }] },
    spec: { terminationGracePeriodSeconds: 1, volumes: [{ name: "data", hostPath: { path, type } }] },
  });
}

async function apiPod(name: string): Promise<Pod | undefined> {
  const list = (await (await fetch(`http://127.0.0.1:${fx.port}/pods`)).json()) as PodList;
  return list.items.find((p) => p.metadata.name === `${name}-hp-node`);
}

async function sandboxesOf(name: string) {
  const { items } = await fx.cri.runtime.listPodSandbox({ filter: { labelSelector: { [labels.KubernetesPodNameLabel]: `${name}-hp-node` } } });
  return items;
}

describe("hostPath type checks", () => {
  test("type File on a missing path: Pending in ContainerCreating, the kubelet's message, no sandbox, nothing created", async () => {
    const path = join(host(), "app.conf");
    writeFileSync(join(fx.manifests, "conf.json"), JSON.stringify(hostPathPod("conf", path, "File", "/etc/app.conf")));
    const message = `hostPath type check failed: ${path} is not a file`;
    await waitFor("the type check failure in the log", () => fx.bunlet!.lines.find((l) => String(l.err ?? "").includes(message)));
    const pod = await waitFor("the pod in /pods", () => apiPod("conf"));
    expect(pod.status?.phase).toBe("Pending");
    expect(pod.status?.containerStatuses?.[0].state?.waiting?.reason).toBe("ContainerCreating");
    const line = fx.bunlet!.lines.find((l) => String(l.err ?? "").includes(message))!;
    expect(String(line.err)).toContain(`MountVolume.SetUp failed for volume "data" : ${message}`);
    expect(await sandboxesOf("conf")).toEqual([]);
    expect(existsSync(path)).toBe(false);
  }, STEP_MS);

  test("once the file exists the pod starts with it mounted", async () => {
    const path = join(host(), "app.conf");
    writeFileSync(path, "key=value\n");
    const running = await waitFor("conf Running", async () => {
      const pod = await apiPod("conf");
      return pod?.status?.phase === "Running" ? pod : undefined;
    });
    expect(running.status?.containerStatuses?.[0].ready).toBe(true);
    expect(statSync(path).isFile()).toBe(true);
    expect((await sandboxesOf("conf")).length).toBe(1);
  }, STEP_MS);

  test("DirectoryOrCreate creates the missing directory (0755) and the pod runs", async () => {
    const path = join(host(), "made", "here");
    writeFileSync(join(fx.manifests, "data.json"), JSON.stringify(hostPathPod("data", path, "DirectoryOrCreate", "/data")));
    await waitFor("data Running", async () => (await apiPod("data"))?.status?.phase === "Running");
    expect(statSync(path).isDirectory()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o755);
  }, STEP_MS);
});
