/**
 * dist/bunlet on a real containerd, for what only shows across a restart of bunlet or a real
 * crash loop: a static pod edited while bunlet was stopped starts only after the old version
 * stopped (no CRI listing shows the new sandbox beside the old running container), and a crash-looping container shows `waiting
 * CrashLoopBackOff` in /pods for its whole back-off (judged against the containers CRI lists).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ContainerStatus, Pod, PodList } from "../../../src/api/index.ts";
import { ContainerState, createCriClient, labels, type CriClient } from "../../../src/cri/index.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { bunletWaiter, ensureBuilt, freePort, startBunlet, type BunletProcess } from "./bunlet.ts";

const BUSYBOX = "docker.io/library/busybox:1.36";
const STEP_MS = 90_000;

let ctd: TestContainerd;
let cri: CriClient;
let dir = "";
let manifests = "";
let bunlet: BunletProcess | undefined;
let port = 0;

beforeAll(async () => {
  ensureBuilt();
  ctd = await startTestContainerd({ name: "restarts-e2e" });
  cri = createCriClient({ endpoint: ctd.endpoint });
  dir = mkdtempSync(join(tmpdir(), "bunlet-restarts-e2e-"));
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
      "--hostname-override=e2e-node",
      "--file-check-frequency=1s",
      `--healthz-port=${await freePort()}`,
    ],
    port,
  );
  return bunlet;
}

function writePod(name: string, command: string[]): void {
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: { terminationGracePeriodSeconds: 2, containers: [{ name: "main", image: BUSYBOX, command }] },
  };
  writeFileSync(join(manifests, `${name}.json`), JSON.stringify(pod));
}

const waitFor = bunletWaiter(() => bunlet, 45_000);

async function apiPod(name: string): Promise<Pod | undefined> {
  const list = (await (await fetch(`http://127.0.0.1:${port}/pods`)).json()) as PodList;
  return list.items.find((i) => i.metadata.name === `${name}-e2e-node`);
}

async function runningInApi(name: string): Promise<Pod | undefined> {
  const p = await apiPod(name);
  const cs = p?.status?.containerStatuses ?? [];
  return p?.status?.phase === "Running" && cs.length > 0 && cs.every((c) => c.ready) ? p : undefined;
}

const ofPod = (name: string) => (l: { [k: string]: string }) => l[labels.KubernetesPodNameLabel] === `${name}-e2e-node`;

describe("dist/bunlet across restarts and crash loops", () => {
  test("a manifest edited while bunlet was stopped: the new pod's sandbox is created only after the old container stopped", async () => {
    await start();
    writePod("web", ["sleep", "3600"]);
    const old = await waitFor("web Running", () => runningInApi("web"));
    bunlet!.signal("SIGTERM");
    expect(await bunlet!.exited).toBe(0);

    writePod("web", ["sleep", "7200"]);
    const uidOf = (l: { [k: string]: string }) => l[labels.KubernetesPodUIDLabel];
    const oldRunning = async () =>
      (await cri.runtime.listContainers({})).containers.some((c) => uidOf(c.labels) === old.metadata.uid && c.state === ContainerState.CONTAINER_RUNNING);
    expect(await oldRunning()).toBe(true);
    await start();
    // Each sample lists the new pod's sandboxes first, then the old pod's running containers:
    // a sample that finds both saw the two versions side by side.
    const sideBySide: string[] = [];
    const fresh = await waitFor("the edited web Running", async () => {
      const p = await runningInApi("web");
      const newSandboxes = (await cri.runtime.listPodSandbox({})).items.filter((sb) => ofPod("web")(sb.labels) && uidOf(sb.labels) !== old.metadata.uid);
      if (newSandboxes.length > 0 && (await oldRunning())) sideBySide.push(newSandboxes.map((sb) => sb.id).join(","));
      return p && p.metadata.uid !== old.metadata.uid ? p : undefined;
    });
    expect(sideBySide).toEqual([]);
    expect(await oldRunning()).toBe(false);
    const newSandboxes = (await cri.runtime.listPodSandbox({})).items.filter((sb) => uidOf(sb.labels) === fresh.metadata.uid);
    expect(newSandboxes).toHaveLength(1);
    expect(bunlet!.lines.some((l) => l.msg === "Killing orphaned runtime pod" && l.podUID === old.metadata.uid)).toBe(true);
  }, STEP_MS);

  test("a crash-looping container shows waiting CrashLoopBackOff in /pods for its whole back-off", async () => {
    writePod("crash", ["sh", "-c", "exit 1"]);
    // Each sample reads /pods first, then CRI: when CRI still shows attempt 1 (the first restart,
    // which is immediate) exited and nothing newer, the /pods sample was taken during its back-off.
    const inBackoff: string[] = [];
    const describeState = (s: ContainerStatus | undefined) => {
      const state = s?.state;
      if (state?.waiting) return `waiting ${state.waiting.reason}`;
      if (state?.terminated) return `terminated ${state.terminated.reason}`;
      return state?.running ? "running" : "none";
    };
    await waitFor(
      "the container's third attempt (after a 10 s back-off)",
      async () => {
        const shown = describeState((await apiPod("crash"))?.status?.containerStatuses?.[0]);
        const attempts = (await cri.runtime.listContainers({})).containers.filter((c) => ofPod("crash")(c.labels));
        const newest = attempts.sort((a, b) => b.metadata!.attempt - a.metadata!.attempt)[0];
        if (newest === undefined) return false;
        if (newest.metadata!.attempt >= 2) return true;
        if (newest.metadata!.attempt === 1 && newest.state === ContainerState.CONTAINER_EXITED) inBackoff.push(shown);
        return false;
      },
      60_000,
    );
    // Until bunlet's PLEG sees the exit, /pods may still say running; from then on it shows the
    // back-off (at most one sample may catch the sync between seeing the exit and the back-off).
    const seen = inBackoff.slice(inBackoff.findIndex((s) => s !== "running"));
    const firstBackoff = seen.indexOf("waiting CrashLoopBackOff");
    expect(firstBackoff).toBeGreaterThanOrEqual(0);
    // Only the moment before the sync recorded the back-off may show the last exit; never later.
    expect(seen.slice(0, firstBackoff).every((s) => s.startsWith("terminated"))).toBe(true);
    expect(seen.slice(firstBackoff).filter((s) => s !== "waiting CrashLoopBackOff")).toEqual([]);
    // The sync that finds the back-off records it at once: only the samples taken between the
    // PLEG seeing the exit and that sync's end show the exit, so the back-off is shown for most of
    // the wait (bunlet without the fix showed the exit until the next sync, near its end). A share
    // of samples, not a count: a loaded machine takes fewer, slower samples.
    expect(firstBackoff).toBeLessThan(seen.length - firstBackoff);
  }, STEP_MS);
});
