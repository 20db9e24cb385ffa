/**
 * The built dist/bunlet against a real containerd (its own root, socket and bridge): manifests
 * written, edited and removed drive real containers; /pods reports them; SIGKILL plus a restart
 * restarts nothing; SIGTERM stops bunlet in seconds and leaves the pods running. The tests run in
 * order on one containerd, each starting from the state the previous one left; once on
 * containerd 1.6 (bunlet relists) and once on 1.7 (bunlet follows its event stream).
 */
import { describe, expect, test } from "bun:test";
import { unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod, PodList } from "../../../src/api/index.ts";
import { ContainerState, labels } from "../../../src/cri/index.ts";
import { E2E_CONTAINERD_VERSIONS } from "../../harness/containerd-versions.ts";
import { makePod } from "../../fixtures/pods.ts";
import { agentFixture, linePod } from "./bunlet.ts";

describe.each(E2E_CONTAINERD_VERSIONS)("dist/bunlet on containerd %s", (version) => {
  const STEP_MS = 180_000;

  const fx = agentFixture({ name: "agent", hostname: "e2e-node", waitTimeoutMs: 45_000, containerdVersion: version });
  const { waitFor } = fx;


  async function podsApi(): Promise<PodList> {
  const res = await fetch(`http://127.0.0.1:${fx.port}/pods`);
  return (await res.json()) as PodList;
  }

  /** /pods's pod for a static pod name, once Running with every container ready. */
  async function runningInApi(name: string): Promise<Pod | undefined> {
  const p = (await podsApi()).items.find((i) => i.metadata.name === `${name}-e2e-node`);
  const cs = p?.status?.containerStatuses ?? [];
  return p?.status?.phase === "Running" && cs.length > 0 && cs.every((c) => c.ready) ? p : undefined;
  }

  async function containersOf(name: string) {
  const { containers } = await fx.cri.runtime.listContainers({});
  return containers.filter((c) => c.labels[labels.KubernetesPodNameLabel] === `${name}-e2e-node`);
  }

  /** How many ListPodSandbox calls the running bunlet has made (its runtime operation counter). */
  async function listSandboxCalls(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${fx.port}/metrics`)).text();
  const m = text.match(/^kubelet_runtime_operations_total\{operation_type="list_podsandbox"\} (\d+)/m);
  return m ? Number(m[1]) : 0;
  }

  const runningIds = async (name: string) =>
  (await containersOf(name)).filter((c) => c.state === ContainerState.CONTAINER_RUNNING).map((c) => c.id).sort();

  test("a manifest written to the directory runs; /pods shows it Running with ready containers", async () => {
    await fx.start();
    writeFileSync(join(fx.manifests, "web.json"), JSON.stringify(makePod({ name: "web", spec: { terminationGracePeriodSeconds: 2 }, container: { command: ["sleep", "3600"] } })));
    const apiPod = await waitFor("web Running in /pods", () => runningInApi("web"));
    expect(await runningIds("web")).toHaveLength(1);
    expect(apiPod.status?.podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const healthz = await fetch(`http://127.0.0.1:${fx.port}/healthz`);
    expect(healthz.status).toBe(200);
      // The PLEG mode this runtime allows: 1.6 answers GetContainerEvents with UNIMPLEMENTED.
      const mode = version === "1.6" ? "generic" : "evented";
      await waitFor(`${mode} PLEG mode`, async () => (await (await fetch(`http://127.0.0.1:${fx.port}/metrics`)).text()).includes(`bunlet_pleg_mode{mode="${mode}"} 1`));
    expect(fx.bunlet!.lines.some((l) => l.msg === "Pod is running" && linePod(l, "default/web-e2e-node"))).toBe(true);
  }, STEP_MS);

  test("an edited manifest replaces the pod: the new one runs, the old one's container stops", async () => {
    const before = await runningIds("web");
    const oldUid = (await runningInApi("web"))!.metadata.uid;
    writeFileSync(join(fx.manifests, "web.json"), JSON.stringify(makePod({ name: "web", spec: { terminationGracePeriodSeconds: 2 }, container: { command: ["sleep", "7200"] } })));
    const replaced = await waitFor("the edited web Running", async () => {
      const p = await runningInApi("web");
      return p && p.metadata.uid !== oldUid ? p : undefined;
    });
    expect(replaced.metadata.uid).not.toBe(oldUid);
    await waitFor("only the new container running", async () => {
      const ids = await runningIds("web");
      return ids.length === 1 && !before.includes(ids[0]);
    });
  }, STEP_MS);

  test("SIGKILL and a restart of bunlet restart nothing", async () => {
    const before = await runningIds("web");
    const containersBefore = (await containersOf("web")).length;
    fx.bunlet!.signal("SIGKILL");
    await fx.bunlet!.exited;
    await fx.start();
    await waitFor("web Running under the new bunlet", () => runningInApi("web"));
    // Let the new bunlet list the runtime a few more times (relists and housekeeping): a pod it
    // failed to adopt would have been killed or duplicated by then.
    const lists = await listSandboxCalls();
    await waitFor("four more ListPodSandbox calls", async () => (await listSandboxCalls()) >= lists + 4);
    expect(await runningIds("web")).toEqual(before);
    expect((await containersOf("web")).length).toBe(containersBefore);
  }, STEP_MS);

  test("SIGTERM stops bunlet cleanly and leaves the pods running", async () => {
    const before = await runningIds("web");
    fx.bunlet!.signal("SIGTERM");
    const code = await fx.bunlet!.exited;
    expect(code).toBe(0);
    expect(await runningIds("web")).toEqual(before);
    // The shutdown ran its course (no second signal, no forced exit), logged once, in order, by the agent.
    expect(fx.bunlet!.lines.some((l) => String(l.msg).startsWith("second signal"))).toBe(false);
    const shutdownLines = fx.bunlet!.lines.filter((l) => l.msg === "Shutting down; pods keep running" || l.msg === "Shutdown complete");
    expect(shutdownLines.map((l) => [l.msg, l.reason])).toEqual([
      ["Shutting down; pods keep running", "received SIGTERM"],
      ["Shutdown complete", undefined],
    ]);
    // The binary embeds its source map: every line names the TypeScript file and line that logged it.
    expect(fx.bunlet!.lines.filter((l) => !/^[\w-]+\.ts:\d+$/.test(String(l.caller)))).toEqual([]);
  }, STEP_MS);

  test("a removed manifest stops the pod's containers", async () => {
    await fx.start();
    await waitFor("web adopted", () => runningInApi("web"));
    unlinkSync(join(fx.manifests, "web.json"));
    await waitFor("web's containers stopped", async () => (await runningIds("web")).length === 0);
    await waitFor("/pods empty", async () => (await podsApi()).items.length === 0);
    const stops = fx.bunlet!.lines.filter((l) => String(l.msg).startsWith("Stopping container") && linePod(l, "default/web-e2e-node"));
    expect(stops.length).toBeGreaterThan(0);
    expect(stops.every((l) => l.reason === "Killing")).toBe(true);
  }, STEP_MS);
});
