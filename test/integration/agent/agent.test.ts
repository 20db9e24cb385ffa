// The whole agent (startAgent) against the fake CRI over a real gRPC socket, on real time:
// static pods from a manifest directory run, restart, go away, survive a bunlet restart and a
// runtime outage.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ContainerState, PodSandboxState } from "../../../src/cri/index.ts";
import {
  busyboxPod,
  getPods,
  healthz,
  removeManifest,
  runningPod,
  useAgentFixture,
  waitFor,
  writeManifest,
  type RunningAgent,
} from "./helpers.ts";

const TIMEOUT_MS = 40_000;

const fx = useAgentFixture();
const start = (extra: string[] = []) => fx.start(extra);

const running = (name: string) =>
  fx.fake.state.containers.filter((c) => c.name === name && c.state === ContainerState.CONTAINER_RUNNING);
const countCalls = (method: string) => fx.fake.calls.filter((c) => c.method === method).length;
type Sample = { value: number; metricName?: string };
/** A counter's value, or a histogram's sample named `sample` (e.g. its _count). */
const metricValue = async (agent: RunningAgent, name: string, sample = name) => {
  const values = ((await agent.registry.getSingleMetric(name)?.get())?.values ?? []) as Sample[];
  return values.find((v) => (v.metricName ?? name) === sample)?.value;
};

describe("agent on the fake CRI", () => {
  test("runs a static pod: /pods shows it Running with ready containers, the start is timed", async () => {
    writeManifest(fx.dirs, "web.json", busyboxPod("web", { containers: ["a", "b"] }));
    const agent = await start();
    const pod = await waitFor("web Running and ready", () => runningPod(agent, "web"));
    expect(pod.status?.containerStatuses?.map((c) => c.name).sort()).toEqual(["a", "b"]);
    expect(running("a").length).toBe(1);
    expect(running("b").length).toBe(1);
    expect(existsSync(join(fx.dirs.root, "state", "pods", pod.metadata.uid!, "volumes"))).toBe(true);

    const h = await healthz(agent);
    expect(h.status).toBe(200);
    const started = agent.lines.find((l) => l.msg === "Pod is running");
    expect(started?.pod).toEqual({ name: "web-node1", namespace: "default" });
    expect(await metricValue(agent, "kubelet_pod_start_duration_seconds", "kubelet_pod_start_duration_seconds_count")).toBe(1);
  }, TIMEOUT_MS);

  test("a crashed container is restarted after the PLEG notices, and the pod stays Running", async () => {
    writeManifest(fx.dirs, "web.json", busyboxPod("web"));
    const agent = await start();
    await waitFor("web Running", () => runningPod(agent, "web"));
    const first = running("main")[0];
    fx.fake.exitContainer(first.id, 1);
    const second = await waitFor("a new main container running", () => running("main").find((c) => c.id !== first.id));
    expect(second.attempt).toBe(1);
    const pod = await waitFor("restartCount 1 in /pods", async () => {
      const p = await runningPod(agent, "web");
      return p?.status?.containerStatuses?.[0].restartCount === 1 ? p : undefined;
    });
    expect(pod.status?.containerStatuses?.[0].lastState?.terminated?.exitCode).toBe(1);
  }, TIMEOUT_MS);

  test("a removed manifest stops the pod, and bunlet forgets its status and directory", async () => {
    writeManifest(fx.dirs, "web.json", busyboxPod("web"));
    const agent = await start();
    const pod = await waitFor("web Running", () => runningPod(agent, "web"));
    const podDir = join(fx.dirs.root, "state", "pods", pod.metadata.uid!);
    expect(existsSync(podDir)).toBe(true);

    removeManifest(fx.dirs, "web.json");
    await waitFor("containers and sandbox stopped", () =>
      fx.fake.state.containers.every((c) => c.state === ContainerState.CONTAINER_EXITED) &&
      fx.fake.state.sandboxes.every((s) => s.state === PodSandboxState.SANDBOX_NOTREADY),
    );
    await waitFor("/pods empty", async () => (await getPods(agent)).items.length === 0);
    await waitFor("pod directory removed", () => !existsSync(podDir));
    expect(agent.podList().items).toEqual([]);
  }, TIMEOUT_MS);

  test("a restarted bunlet adopts running pods: nothing is stopped, created or duplicated", async () => {
    writeManifest(fx.dirs, "web.json", busyboxPod("web"));
    const first = await start();
    await waitFor("web Running", () => runningPod(first, "web"));
    await first.stop();
    fx.agents.splice(fx.agents.indexOf(first), 1);
    const before = { sandboxes: countCalls("RunPodSandbox"), creates: countCalls("CreateContainer") };
    expect(countCalls("StopContainer") + countCalls("StopPodSandbox")).toBe(0);

    const second = await start();
    await waitFor("web Running under the new agent", () => runningPod(second, "web"));
    // Let housekeeping (which lists the runtime's pods) run twice more: still nothing may change.
    const lists = countCalls("ListPodSandbox");
    await waitFor("two more housekeeping passes", () => countCalls("ListPodSandbox") >= lists + 2);
    expect(countCalls("RunPodSandbox")).toBe(before.sandboxes);
    expect(countCalls("CreateContainer")).toBe(before.creates);
    expect(countCalls("StopContainer") + countCalls("StopPodSandbox")).toBe(0);
    expect(running("main").length).toBe(1);
    // An adopted pod was never seen starting: no start duration is recorded for it.
    expect(second.lines.some((l) => l.msg === "Pod is running")).toBe(false);
  }, TIMEOUT_MS);

  test("pods removed while bunlet was down are stopped by the next bunlet's housekeeping", async () => {
    writeManifest(fx.dirs, "web.json", busyboxPod("web"));
    writeManifest(fx.dirs, "db.json", busyboxPod("db", { containers: ["db"] }));
    const first = await start();
    await waitFor("both Running", async () => (await runningPod(first, "web")) && (await runningPod(first, "db")));
    await first.stop();
    fx.agents.splice(fx.agents.indexOf(first), 1);
    removeManifest(fx.dirs, "db.json");

    const second = await start();
    await waitFor("db stopped", () => running("db").length === 0);
    expect(running("main").length).toBe(1);
    expect(await metricValue(second, "kubelet_orphaned_runtime_pods_total")).toBe(1);
  }, TIMEOUT_MS);

  test("shutting down leaves every pod running", async () => {
    writeManifest(fx.dirs, "web.json", busyboxPod("web"));
    const agent = await start();
    await waitFor("web Running", () => runningPod(agent, "web"));
    await agent.stop();
    fx.agents.splice(0);
    expect(countCalls("StopContainer") + countCalls("StopPodSandbox") + countCalls("RemoveContainer")).toBe(0);
    expect(running("main").length).toBe(1);
    expect(agent.lines.at(-1)?.msg).toBe("Shutdown complete");
  }, TIMEOUT_MS);

  test("the runtime going away and coming back is survived, and nothing is restarted", async () => {
    writeManifest(fx.dirs, "web.json", busyboxPod("web"));
    const agent = await start();
    await waitFor("web Running", () => runningPod(agent, "web"));
    const creates = countCalls("CreateContainer");

    await fx.fake.refuse(true);
    const down = await waitFor("healthz to report the runtime down", async () => {
      const h = await healthz(agent);
      return h.status === 500 ? h : undefined;
    });
    expect(down.body).toContain("[-]runtime failed");
    expect(down.body).toContain("container runtime is down");

    await fx.fake.refuse(false);
    await waitFor("healthz ok again", async () => (await healthz(agent)).status === 200);
    await waitFor("web still Running", () => runningPod(agent, "web"));
    expect(countCalls("CreateContainer")).toBe(creates);
    expect(running("main").length).toBe(1);
    expect(agent.lines.some((l) => l.msg === "Container runtime is ready again; pod synchronization resumes")).toBe(true);
  }, TIMEOUT_MS);
});
