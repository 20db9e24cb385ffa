/**
 * dist/bunlet with no --container-runtime-endpoint: it runs its own containerd under
 * <root-dir>/containerd (as k3s does). A pod keeps running in its shim when SIGTERM stops bunlet
 * and its containerd, and the next bunlet (and its new containerd) adopts it without a restart.
 * Its pod network comes from --pod-cidr and --cni-bridge-name (a test /24 and bridge of its own, so
 * it never collides with another bunlet on the host), removed afterwards.
 *
 * Run once per containerd version (--containerd): on 1.6 bunlet relists every second, and a pod it
 * just started at once; on 1.7 and 2.x (config version 3) it follows the event stream, so a killed
 * container is restarted and an init container is followed by the app container with no relist at all.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PodList } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE, containerdPaths } from "../../../src/containerd/index.ts";
import { ContainerState, createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { deleteLink, deleteNatRulesFor, killShims, shimPids, unmountUnder } from "../../harness/cleanup.ts";
import { containerdBinary, E2E_CONTAINERD_VERSIONS } from "../../harness/containerd-versions.ts";
import { ensureImages, importImages } from "../../harness/images.ts";
import { allocateTestNetwork, type TestNetwork } from "../../harness/network.ts";
import { requireE2e } from "../../harness/require.ts";
import { bunletWaiter, ensureBuilt, freePort, startBunlet, type BunletProcess } from "./bunlet.ts";

describe.each([...E2E_CONTAINERD_VERSIONS, "2"] as const)("dist/bunlet with its embedded containerd %s", (version) => {
  const STEP_MS = 180_000;
  let dir = "";
  let rootDir = "";
  let manifests = "";
  let port = 0;
  let bunlet: BunletProcess | undefined;
  let cri: CriClient | undefined;
  let net: TestNetwork | undefined;

  beforeAll(async () => {
    requireE2e();
    await ensureImages();
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), `bunlet-embedded-${version}-`));
    rootDir = join(dir, "root");
    manifests = join(dir, "manifests");
    mkdirSync(manifests);
    port = await freePort();
    net = allocateTestNetwork();
  }, 180_000);

  afterAll(async () => {
    if (bunlet) {
      bunlet.signal("SIGTERM");
      await bunlet.exited;
    }
    cri?.close();
    if (rootDir) {
      killShims(containerdPaths(rootDir).socketPath);
      unmountUnder(dir);
    }
    if (net) {
      deleteLink(net.bridgeName);
      deleteNatRulesFor(net.podSubnet);
      net.release();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  async function start(): Promise<BunletProcess> {
    bunlet = await startBunlet(
      [
        `--root-dir=${rootDir}`,
        `--pod-manifest-path=${manifests}`,
        `--pod-logs-dir=${join(dir, "logs", "pods")}`,
        `--container-logs-dir=${join(dir, "logs", "containers")}`,
        "--hostname-override=embedded",
        `--pod-cidr=${net!.podSubnet}`,
        `--cni-bridge-name=${net!.bridgeName}`,
        `--containerd=${containerdBinary(version)}`,
        "--file-check-frequency=1s",
        `--healthz-port=${await freePort()}`,
      ],
      port,
    );
    return bunlet;
  }

  const waitFor = bunletWaiter(() => bunlet, 60_000);

  const healthy = async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200;
  const webRunning = async () => {
    const list = (await (await fetch(`http://127.0.0.1:${port}/pods`)).json()) as PodList;
    const pod = list.items.find((p) => p.metadata.name === "web-embedded");
    return pod?.status?.phase === "Running" && pod.status.containerStatuses?.every((c) => c.ready) ? pod : undefined;
  };
  /** Pids of containerd processes started with this root's config. */
  function containerdPids(root: string): number[] {
    const out = Bun.spawnSync(["pgrep", "-f", `containerd --config ${join(root, "containerd")}`]).stdout.toString().trim();
    return out === "" ? [] : out.split("\n").map(Number);
  }

  /** A sample of the running bunlet's /metrics, 0 when absent. */
  async function metric(pattern: RegExp): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return Number(pattern.exec(text)?.[1] ?? 0);
  }
  /** How many relists the running bunlet has done (each one is observed in this histogram). */
  const relists = () => metric(/^kubelet_pleg_relist_duration_seconds_count (\d+)/m);
  const evented = async () => (await metric(/^bunlet_pleg_mode\{mode="evented"\} (\d+)/m)) === 1;

  async function runningContainerIds(): Promise<string[]> {
    cri ??= createCriClient({ endpoint: `unix://${containerdPaths(rootDir).socketPath}` });
    const { containers } = await cri.runtime.listContainers({});
    return containers.filter((c) => c.state === ContainerState.CONTAINER_RUNNING).map((c) => c.id).sort();
  }

  test("starts its own containerd and runs a static pod on it", async () => {
    await start();
    await waitFor("healthz ok", healthy);
    const socket = containerdPaths(rootDir).socketPath;
    expect(existsSync(socket)).toBe(true);
    expect(bunlet!.lines.some((l) => l.msg === "containerd is ready")).toBe(true);
    // No network here: the test images are imported as `ctr import` would.
    await importImages(socket);
    writeFileSync(
      join(manifests, "web.json"),
      JSON.stringify(
        makePod({ name: "web", namespace: "default", container: { name: "main", image: BUSYBOX_IMAGE, command: ["sleep", "3600"] }, spec: { terminationGracePeriodSeconds: 2 } }),
      ),
    );
    const web = await waitFor("web Running", webRunning);
    expect(bunlet!.lines.find((l) => l.msg === "containerd binary")).toMatchObject({ version: expect.stringMatching(new RegExp(`^${version.replace(".", "\\.")}\\.`)) });
    if (version !== "1.6") await waitFor("evented PLEG mode", evented, 10_000);
    // Relisting (1.6), the sync that started the pod had it relisted at once (PLEGOnDemandRelist);
    // with the event stream the start is reported without one.
    const podRelists = await metric(/^kubelet_pleg_pod_relist_duration_seconds_count (\d+)/m);
    if (version === "1.6") expect(podRelists).toBeGreaterThanOrEqual(1);
    else expect(podRelists).toBe(0);
    // The pod network is the one --pod-cidr asked for.
    const prefix = net!.podSubnet.split(".").slice(0, 3).join(".") + ".";
    expect(web.status?.podIP).toStartWith(prefix);
    expect(await runningContainerIds()).toHaveLength(1);
  }, STEP_MS);

  test("SIGTERM stops bunlet and its containerd cleanly; the pod keeps running in its shim", async () => {
    const ids = await runningContainerIds();
    const socket = containerdPaths(rootDir).socketPath;
    bunlet!.signal("SIGTERM");
    expect(await bunlet!.exited).toBe(0);
    // In order, and containerd left on SIGTERM: no fallback to SIGKILL after its 10 s timeout.
    const msgs = bunlet!.lines.map((l) => l.msg);
    const order = ["Shutting down; pods keep running", "containerd stopped; containers keep running in their shims", "Shutdown complete"].map((m) => msgs.indexOf(m));
    expect(order.every((i, n) => i >= 0 && (n === 0 || i > order[n - 1]!))).toBe(true);
    expect(msgs).not.toContain("containerd did not exit after SIGTERM; sending SIGKILL");
    expect(shimPids(socket).length).toBeGreaterThan(0);
    // containerd itself is gone: no process runs with this root's config any more.
    expect(containerdPids(rootDir)).toEqual([]);

    await start();
    await waitFor("web Running again", webRunning);
    expect(await runningContainerIds()).toEqual(ids);
  }, STEP_MS);

  test("a container killed behind bunlet's back is restarted (1.6: the generic PLEG's relist notices it; 1.7, 2.x: from the event stream, no relist)", async () => {
    const [victim] = await runningContainerIds();
    const relistsBefore = await relists();
    const socket = containerdPaths(rootDir).socketPath;
    const killed = Bun.spawnSync(["ctr", "--address", socket, "-n", "k8s.io", "tasks", "kill", "-s", "SIGKILL", victim]);
    expect(killed.exitCode).toBe(0);
    // How soon: scripts/bench-pleg.ts (generic PLEG on containerd, kill → ContainerDied).
    const [replacement] = await waitFor("a new running container", async () => {
      const ids = await runningContainerIds();
      return ids.length === 1 && ids[0] !== victim ? ids : undefined;
    }, 60_000);
    expect(replacement).not.toBe(victim);
    if (version !== "1.6") expect(await relists()).toBe(relistsBefore);
    // /pods catches up at the pod's next sync.
    const restarted = await waitFor("restartCount 1 in /pods", async () => {
      const pod = await webRunning();
      return pod?.status?.containerStatuses?.[0].restartCount === 1 ? pod : undefined;
    }, 60_000);
    expect(restarted.status?.containerStatuses?.[0].lastState?.terminated?.exitCode).toBe(137);
  }, STEP_MS);

  test("an init container runs to completion, then the app container starts (1.7, 2.x: each step from an event, no relist)", async () => {
    const relistsBefore = await relists();
    writeFileSync(
      join(manifests, "init.json"),
      JSON.stringify(
        makePod({
          name: "init",
          namespace: "default",
          container: { name: "main", image: BUSYBOX_IMAGE, command: ["sleep", "3600"] },
          spec: { terminationGracePeriodSeconds: 2, initContainers: [{ name: "setup", image: BUSYBOX_IMAGE, command: ["true"] }] },
        }),
      ),
    );
    const pod = await waitFor("init Running", async () => {
      const list = (await (await fetch(`http://127.0.0.1:${port}/pods`)).json()) as PodList;
      const p = list.items.find((i) => i.metadata.name === "init-embedded");
      return p?.status?.phase === "Running" && p.status.containerStatuses?.[0]?.ready ? p : undefined;
    });
    expect(pod.status?.initContainerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
    expect(pod.status?.conditions?.find((c) => c.type === "Initialized")?.status).toBe("True");
    if (version !== "1.6") expect(await relists()).toBe(relistsBefore);
    unlinkSync(join(manifests, "init.json"));
    await waitFor("init's containers stopped", async () => (await runningContainerIds()).length === 1);
  }, STEP_MS);

  test("a removed manifest stops the pod on the embedded containerd", async () => {
    unlinkSync(join(manifests, "web.json"));
    await waitFor("no running container", async () => (await runningContainerIds()).length === 0);
  }, STEP_MS);
});
