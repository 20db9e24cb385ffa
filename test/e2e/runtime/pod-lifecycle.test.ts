/**
 * The runtime manager against a real containerd: pods run, crash-loop with growing backoff, stay
 * down under Never, run preStop before the stop, and leave nothing behind once killed and
 * collected.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runningPodFromStatus } from "../../../src/container/index.ts";
import { SyncError } from "../../../src/runtime/index.ts";
import { busybox, e2ePod, eventually, startE2eRuntime, type E2eRuntime } from "./setup.ts";

let rt: E2eRuntime;
beforeAll(async () => (rt = await startE2eRuntime("rt-lifecycle")), 120_000);
afterAll(() => rt?.stop(), 60_000);

const SLEEP = ["sleep", "3600"];

describe("runtime manager on containerd", () => {
  test("a pod with an init container and two containers runs, and is gone after killPod and GC", async () => {
    const pod = e2ePod("web", {
      initContainers: [busybox("init", ["sh", "-c", "echo initialized"])],
      containers: [busybox("a", SLEEP), busybox("b", SLEEP)],
    });
    expect((await rt.sync(pod)).error).toBeUndefined();
    await eventually("the init container to finish", async () => {
      const s = await rt.status(pod);
      return s.containerStatuses.find((c) => c.name === "init" && c.state === "exited");
    });
    expect((await rt.sync(pod)).error).toBeUndefined();
    const s = await rt.status(pod);
    expect(s.ips[0]).toMatch(/^10\./);
    expect(s.containerStatuses.map((c) => [c.name, c.state, c.exitCode]).sort()).toEqual([
      ["a", "running", 0],
      ["b", "running", 0],
      ["init", "exited", 0],
    ]);
    // The CRI log and its /var/log/containers-style link.
    const logDir = join(rt.dirs.podLogsDir, `e2e_web_${pod.metadata.uid}`);
    expect(readFileSync(join(logDir, "init", "0.log"), "utf8")).toContain("stdout F initialized");
    expect(readdirSync(rt.dirs.containerLogsDir).filter((f) => f.startsWith("web_e2e_")).length).toBe(3);
    // A later sync adopts what runs: nothing to do.
    expect((await rt.sync(pod)).steps.filter((x) => x.action === "StartContainer")).toEqual([]);

    const killed = await rt.rm.killPod(pod, runningPodFromStatus(await rt.status(pod)), { gracePeriodOverride: 2, signal: rt.signal });
    expect(killed.error).toBeUndefined();
    await rt.rm.garbageCollect((uid) => uid === pod.metadata.uid, { signal: rt.signal });
    const { items } = await rt.cri.runtime.listPodSandbox({ filter: { labelSelector: { "io.kubernetes.pod.uid": pod.metadata.uid! } } });
    const { containers } = await rt.cri.runtime.listContainers({ filter: { labelSelector: { "io.kubernetes.pod.uid": pod.metadata.uid! } } });
    expect(items).toEqual([]);
    expect(containers).toEqual([]);
    expect(existsSync(logDir)).toBe(false);
    expect(readdirSync(rt.dirs.containerLogsDir).filter((f) => f.startsWith("web_e2e_"))).toEqual([]);
  }, 60_000);

  test("a crashing container under Always restarts at once, then only after a 10 s backoff, then 20 s", async () => {
    const pod = e2ePod("crash", { containers: [busybox("c", ["sh", "-c", "exit 3"])] });
    const exitedCount = async (n: number) => {
      const s = await rt.status(pod);
      const exited = s.containerStatuses.filter((c) => c.state === "exited");
      return exited.length >= n && !s.containerStatuses.some((c) => c.state !== "exited") ? s : undefined;
    };
    await rt.sync(pod);
    await eventually("the first exit", () => exitedCount(1));
    const restart = await rt.sync(pod);
    expect(restart.error).toBeUndefined();
    expect(restart.steps.filter((x) => x.action === "StartContainer" && !x.error).length).toBe(1);

    const second = await eventually("the second exit", () => exitedCount(2));
    const blocked = await rt.sync(pod);
    expect(blocked.error).toBeInstanceOf(SyncError);
    const expiresAt = (blocked.error as SyncError).backoffUntil;
    expect(expiresAt).toBeGreaterThan(0);
    expect(expiresAt - second.containerStatuses[0].finishedAt).toBe(10_000);
    expect(rt.rm.getContainerWaitingReason(pod.metadata.uid!, "c")?.message).toStartWith("back-off 10s restarting failed container=c pod=crash_e2e(");

    await Bun.sleep(Math.max(0, expiresAt - Date.now() + 50));
    const third = await rt.sync(pod);
    expect(third.error).toBeUndefined();
    await eventually("the third exit", () => exitedCount(3));
    await rt.sync(pod);
    expect(rt.rm.getContainerWaitingReason(pod.metadata.uid!, "c")?.message).toStartWith("back-off 20s");
    const s = await rt.status(pod);
    expect(s.containerStatuses[0]).toMatchObject({ restartCount: 2, exitCode: 3, reason: "Error" });
    await rt.rm.killPod(pod, runningPodFromStatus(s), { gracePeriodOverride: 2, signal: rt.signal });
  }, 60_000);

  test("under Never an exited container stays exited and the pod's sandbox is stopped", async () => {
    const pod = e2ePod("once", { restartPolicy: "Never", containers: [busybox("c", ["sh", "-c", "exit 1"])] });
    await rt.sync(pod);
    await eventually("the exit", async () => (await rt.status(pod)).containerStatuses.find((c) => c.state === "exited"));
    await rt.sync(pod);
    const s = await rt.status(pod);
    expect(s.containerStatuses.map((c) => [c.state, c.exitCode])).toEqual([["exited", 1]]);
    expect(s.sandboxStatuses.map((x) => x.state)).toEqual(["notready"]);
    await rt.sync(pod);
    expect((await rt.status(pod)).containerStatuses.length).toBe(1);
  }, 60_000);

  test("preStop runs before the container is stopped", async () => {
    const pod = e2ePod("graceful", {
      volumes: [{ name: "out", emptyDir: {} }],
      containers: [
        busybox("c", ["sh", "-c", 'trap "echo term >> /out/events; exit 0" TERM; while true; do sleep 0.1; done'], {
          volumeMounts: [{ name: "out", mountPath: "/out" }],
          lifecycle: { preStop: { exec: { command: ["sh", "-c", "echo prestop >> /out/events"] } } },
        }),
      ],
    });
    await rt.sync(pod);
    await eventually("the container to run", async () => (await rt.status(pod)).containerStatuses.find((c) => c.state === "running"));
    await rt.rm.killPod(pod, runningPodFromStatus(await rt.status(pod)), { signal: rt.signal });
    const events = readFileSync(join(rt.dirs.podsDir, pod.metadata.uid!, "volumes", "kubernetes.io~empty-dir", "out", "events"), "utf8");
    expect(events.split("\n").filter(Boolean)).toEqual(["prestop", "term"]);
    expect((await rt.status(pod)).containerStatuses[0]).toMatchObject({ state: "exited", exitCode: 0 });
  }, 60_000);
});
