/**
 * The last good pod survives a restart too (issue 18.10), with dist/bunlet on a real containerd:
 * a bunlet restarted while a manifest is broken keeps running that manifest's last good pod (the
 * same container, nothing killed as an orphan, the error reported as before); fixing the file
 * replaces the pod; deleting it still removes the pod.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, PodList } from "../../../src/api/index.ts";
import { ContainerState, createCriClient, labels, type CriClient } from "../../../src/cri/index.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { bunletWaiter, ensureBuilt, freePort, startBunlet, type BunletProcess } from "./bunlet.ts";

const STEP_MS = 90_000;
let ctd: TestContainerd;
let cri: CriClient;
let dir = "";
let manifests = "";
let bunlet: BunletProcess | undefined;
let port = 0;

beforeAll(async () => {
  ensureBuilt();
  ctd = await startTestContainerd({ name: "last-good-e2e" });
  cri = createCriClient({ endpoint: ctd.endpoint });
  dir = mkdtempSync(join(tmpdir(), "bunlet-last-good-e2e-"));
  manifests = join(dir, "manifests");
  mkdirSync(manifests);
  port = await freePort();
}, 180_000);

afterAll(async () => {
  bunlet?.signal("SIGKILL");
  await bunlet?.exited;
  cri?.close();
  await ctd?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

async function start(): Promise<BunletProcess> {
  bunlet = await startBunlet(
    [
      `--container-runtime-endpoint=${ctd.endpoint}`,
      `--pod-manifest-path=${manifests}`,
      `--root-dir=${join(dir, "state")}`,
      `--pod-logs-dir=${join(dir, "logs", "pods")}`,
      `--container-logs-dir=${join(dir, "logs", "containers")}`,
      "--hostname-override=lg-node",
      "--file-check-frequency=1s",
      `--healthz-port=${await freePort()}`,
    ],
    port,
  );
  return bunlet;
}

const waitFor = bunletWaiter(() => bunlet, 45_000);

function web(command: string[]): string {
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "default" },
    spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "main", image: "docker.io/library/busybox:1.36", command }] },
  };
  return JSON.stringify(pod);
}

async function apiWeb(): Promise<Pod | undefined> {
  const list = (await (await fetch(`http://127.0.0.1:${port}/pods`)).json()) as PodList;
  return list.items.find((p) => p.metadata.name === "web-lg-node");
}

async function runningWebContainers(): Promise<string[]> {
  const { containers } = await cri.runtime.listContainers({ filter: { labelSelector: { [labels.KubernetesPodNameLabel]: "web-lg-node" } } });
  return containers.filter((c) => c.state === ContainerState.CONTAINER_RUNNING).map((c) => c.id);
}

describe("the last good pod across a restart", () => {
  const file = () => join(manifests, "web.json");
  let uid = "";
  let container = "";

  test("a bunlet restarted while the manifest is broken keeps the last good pod running and reports the error", async () => {
    writeFileSync(file(), web(["sleep", "3600"]));
    await start();
    const running = await waitFor("web Running", async () => ((await apiWeb())?.status?.phase === "Running" ? apiWeb() : undefined));
    uid = running!.metadata.uid!;
    [container] = await runningWebContainers();
    expect(container).toBeDefined();

    bunlet!.signal("SIGTERM");
    expect(await bunlet!.exited).toBe(0);
    writeFileSync(file(), '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {');
    await start();
    const kept = await waitFor("the kept pod annotated in /pods", async () => {
      const pod = await apiWeb();
      return pod?.metadata.annotations?.["bunlet.io/manifest-error"] ? pod : undefined;
    });
    expect(kept.metadata.uid).toBe(uid);
    expect(kept.status?.phase).toBe("Running");
    expect(kept.metadata.annotations?.["bunlet.io/manifest-error"]).toStartWith(file());
    expect(bunlet!.lines.some((l) => l.msg === "Static pod manifest is invalid; using its last good version saved by a previous run")).toBe(true);
    // Housekeeping has run (sources are ready) and killed nothing: the same container runs.
    await waitFor("two more relists", () => bunlet!.lines.filter((l) => l.level === "error" && l.file === file()).length >= 3);
    expect(await runningWebContainers()).toEqual([container]);
    expect(bunlet!.lines.some((l) => String(l.msg).includes("no config source knows"))).toBe(false);
  }, STEP_MS);

  test("fixing the file replaces the pod", async () => {
    writeFileSync(file(), web(["sleep", "1800"]));
    await waitFor("the new web Running", async () => {
      const pod = await apiWeb();
      return pod && pod.metadata.uid !== uid && pod.status?.phase === "Running" ? pod : undefined;
    });
    const now = await runningWebContainers();
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(container);
  }, STEP_MS);

  test("deleting the file still removes the pod, and a restart does not bring it back", async () => {
    unlinkSync(file());
    await waitFor("web gone", async () => (await runningWebContainers()).length === 0 && (await apiWeb()) === undefined);
    bunlet!.signal("SIGTERM");
    expect(await bunlet!.exited).toBe(0);
    writeFileSync(file(), "{");
    await start();
    await waitFor("the broken file reported", () => bunlet!.lines.find((l) => l.level === "error" && l.file === file()));
    expect(await apiWeb()).toBeUndefined();
    expect(await runningWebContainers()).toEqual([]);
  }, STEP_MS);
});
