/**
 * The last good pod survives a restart too (issue 18.10), with dist/bunlet on a real containerd:
 * a bunlet restarted while a manifest is broken keeps running that manifest's last good pod (the
 * same container, nothing killed as an orphan, the error reported as before); fixing the file
 * replaces the pod; deleting it still removes the pod.
 */
import { describe, expect, test } from "bun:test";
import { unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod, PodList } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { ContainerState, labels } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { agentFixture, isErrorLine } from "./bunlet.ts";

const STEP_MS = 180_000;
const fx = agentFixture({ name: "last-good", hostname: "lg-node", waitTimeoutMs: 45_000 });
const { waitFor } = fx;

function web(command: string[]): string {
  return JSON.stringify(makePod({ name: "web", namespace: "default", container: { name: "main", image: BUSYBOX_IMAGE, command }, spec: { terminationGracePeriodSeconds: 1 } }));
}

async function apiWeb(): Promise<Pod | undefined> {
  const list = (await (await fetch(`http://127.0.0.1:${fx.port}/pods`)).json()) as PodList;
  return list.items.find((p) => p.metadata.name === "web-lg-node");
}

async function runningWebContainers(): Promise<string[]> {
  const { containers } = await fx.cri.runtime.listContainers({ filter: { labelSelector: { [labels.KubernetesPodNameLabel]: "web-lg-node" } } });
  return containers.filter((c) => c.state === ContainerState.CONTAINER_RUNNING).map((c) => c.id);
}

describe("the last good pod across a restart", () => {
  const file = () => join(fx.manifests, "web.json");
  let uid = "";
  let container = "";

  test("a bunlet restarted while the manifest is broken keeps the last good pod running and reports the error", async () => {
    writeFileSync(file(), web(["sleep", "3600"]));
    await fx.start();
    const running = await waitFor("web Running", async () => ((await apiWeb())?.status?.phase === "Running" ? apiWeb() : undefined));
    uid = running!.metadata.uid!;
    [container] = await runningWebContainers();
    expect(container).toBeDefined();

    fx.bunlet!.signal("SIGTERM");
    expect(await fx.bunlet!.exited).toBe(0);
    writeFileSync(file(), '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {');
    await fx.start();
    const kept = await waitFor("the kept pod annotated in /pods", async () => {
      const pod = await apiWeb();
      return pod?.metadata.annotations?.["bunlet.io/manifest-error"] ? pod : undefined;
    });
    expect(kept.metadata.uid).toBe(uid);
    expect(kept.status?.phase).toBe("Running");
    expect(kept.metadata.annotations?.["bunlet.io/manifest-error"]).toStartWith(file());
    expect(fx.bunlet!.lines.some((l) => l.msg === "Static pod manifest is invalid; using its last good version saved by a previous run")).toBe(true);
    // Housekeeping has run (sources are ready) and killed nothing: the same container runs.
    await waitFor("two more periodic checks", () => fx.bunlet!.lines.filter((l) => isErrorLine(l) && l.file === file()).length >= 3);
    expect(await runningWebContainers()).toEqual([container]);
    expect(fx.bunlet!.lines.some((l) => String(l.msg).includes("no config source knows"))).toBe(false);
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
    fx.bunlet!.signal("SIGTERM");
    expect(await fx.bunlet!.exited).toBe(0);
    writeFileSync(file(), "{");
    await fx.start();
    await waitFor("the broken file reported", () => fx.bunlet!.lines.find((l) => isErrorLine(l) && l.file === file()));
    expect(await apiWeb()).toBeUndefined();
    expect(await runningWebContainers()).toEqual([]);
  }, STEP_MS);
});
