import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { hashContainer, runningPodFromStatus } from "../../../src/container/index.ts";
import { BUSYBOX, c, containersNamed, uniquePod, startHarness, type Harness } from "./harness.ts";

let h: Harness;
beforeEach(async () => (h = await startHarness()));
afterEach(() => h.close());

const lastId = (name: string) => containersNamed(h, name).at(-1)!.id;

describe("views over the runtime", () => {
  test("getPods groups sandboxes and containers by pod UID", async () => {
    const a = uniquePod({ containers: [c("x"), c("y")] });
    const b = uniquePod({ containers: [c("z")] });
    await h.sync(a);
    await h.clock.advance(1);
    await h.sync(b);
    const pods = await h.rm.getPods({ signal: h.signal });
    const summary = pods.map((p) => ({ uid: p.uid, name: p.name, sandboxes: p.sandboxes.length, containers: p.containers.map((x) => x.name).sort() }));
    expect(summary).toEqual([
      { uid: b.metadata.uid!, name: b.metadata.name!, sandboxes: 1, containers: ["z"] },
      { uid: a.metadata.uid!, name: a.metadata.name!, sandboxes: 1, containers: ["x", "y"] },
    ]);
    expect(pods[1].containers[0]).toMatchObject({ state: "running", hash: hashContainer(a.spec.containers[0]), image: expect.any(String) });
    expect(pods[1].sandboxes[0]).toMatchObject({ name: "POD", state: "running" });
  });

  test("getPods with all: false lists only ready sandboxes and running containers (what housekeeping may kill)", async () => {
    const live = uniquePod({ containers: [c("x"), c("y")] });
    const dead = uniquePod({ containers: [c("z")] });
    await h.sync(live);
    await h.sync(dead);
    h.fake.exitContainer(lastId("y"), 0);
    const deadSandbox = h.fake.state.sandboxes.find((s) => s.uid === dead.metadata.uid)!;
    await h.rm.killPod(dead, (await h.rm.getPods({ signal: h.signal })).find((p) => p.uid === dead.metadata.uid)!, { signal: h.signal });
    expect(h.fake.state.sandbox(deadSandbox.id)).toBeDefined();
    const running = await h.rm.getPods({ all: false, signal: h.signal });
    expect(running.map((p) => ({ uid: p.uid, containers: p.containers.map((x) => x.name), sandboxes: p.sandboxes.length }))).toEqual([
      { uid: live.metadata.uid!, containers: ["x"], sandboxes: 1 },
    ]);
    expect((await h.rm.getPods({ signal: h.signal })).map((p) => p.uid).sort()).toEqual([live.metadata.uid!, dead.metadata.uid!].sort());
  });

  test("getPod lists one pod by its UID label, exited containers included; a pod the runtime does not know is undefined", async () => {
    const a = uniquePod({ containers: [c("x"), c("y")] });
    const b = uniquePod({ containers: [c("z")] });
    await h.sync(a);
    await h.sync(b);
    h.fake.exitContainer(lastId("y"), 0);
    const pod = await h.rm.getPod(a.metadata.uid!, { signal: h.signal });
    expect(pod && { uid: pod.uid, name: pod.name, sandboxes: pod.sandboxes.length, containers: pod.containers.map((x) => [x.name, x.state]).sort() }).toEqual({
      uid: a.metadata.uid!,
      name: a.metadata.name!,
      sandboxes: 1,
      containers: [
        ["x", "running"],
        ["y", "exited"],
      ],
    });
    const listings = h.fake.calls.filter((call) => call.method === "ListPodSandbox" || call.method === "ListContainers").slice(-2);
    expect(listings.map((call) => (call.request as { filter?: { labelSelector?: Record<string, string> } }).filter?.labelSelector)).toEqual([
      { "io.kubernetes.pod.uid": a.metadata.uid! },
      { "io.kubernetes.pod.uid": a.metadata.uid! },
    ]);
    expect(await h.rm.getPod("no-such-uid", { signal: h.signal })).toBeUndefined();
  });

  test("getPodStatus reports sandboxes, IPs and every container newest first with restart counts", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    h.fake.exitContainer(lastId("a"), 7, { reason: "Error" });
    await h.clock.advance(1_000);
    await h.sync(pod);
    const s = await h.status(pod);
    const sandbox = h.fake.state.sandboxes[0];
    expect(s.ips).toEqual([sandbox.ip]);
    expect(s.sandboxStatuses).toMatchObject([{ id: sandbox.id, state: "ready", attempt: 0, hostNetwork: false, ips: [sandbox.ip] }]);
    expect(s.containerStatuses.map((x) => [x.name, x.state, x.restartCount, x.exitCode])).toEqual([
      ["a", "running", 1, 0],
      ["a", "exited", 0, 7],
    ]);
    const exited = s.containerStatuses[1];
    expect(exited.reason).toBe("Error");
    expect(exited.finishedAt).toBeGreaterThan(0);
    expect(exited.hash).toBe(hashContainer(pod.spec.containers[0]));
    expect(exited.image).not.toBe("");
    expect(exited.containerType).toBe("container");
    expect(exited.sandboxId).toBe(sandbox.id);
  });

  test("the termination message file of an exited container is appended to its message", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    const ctr = containersNamed(h, "a")[0];
    const file = ctr.mounts.find((m) => m.containerPath === "/dev/termination-log")!.hostPath;
    writeFileSync(file, "disk full");
    h.fake.exitContainer(ctr.id, 1, { reason: "Error", message: "" });
    const s = await h.status(pod);
    expect(s.containerStatuses[0].message).toBe("disk full");
  });

  test("a pod the runtime does not know has an empty status", async () => {
    const s = await h.rm.getPodStatus("nope", "x", "ns", { signal: h.signal });
    expect(s).toEqual({ uid: "nope", name: "x", namespace: "ns", ips: [], sandboxStatuses: [], containerStatuses: [] });
  });

  test("runtimeStatus reports runtime and network readiness", async () => {
    expect(await h.rm.runtimeStatus({ signal: h.signal })).toEqual({ runtimeReady: true, networkReady: true, message: "", handlers: [] });
    h.fake.setNetworkReady(false);
    const s = await h.rm.runtimeStatus({ signal: h.signal });
    expect(s.networkReady).toBe(false);
    expect(s.message).toContain("NetworkReady=false");
  });
});

describe("garbage collection", () => {
  async function crashTimes(pod: ReturnType<typeof uniquePod>, n: number) {
    for (let i = 0; i < n; i++) {
      h.fake.exitContainer(lastId("a"), 1);
      await h.clock.advance(301_000);
      await h.sync(pod);
    }
  }

  test("keeps the newest exited container per (pod, container) and removes older ones", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    await crashTimes(pod, 3);
    expect(containersNamed(h, "a").length).toBe(4);
    await h.rm.garbageCollect(() => false, { signal: h.signal });
    const left = containersNamed(h, "a").map((x) => x.attempt);
    expect(left).toEqual([2, 3]);
  });

  test("cleanUpContainersInPod keeps the newest dead container per name, or none with removeAll", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    await crashTimes(pod, 2);
    await h.rm.cleanUpContainersInPod(pod.metadata.uid!, { signal: h.signal });
    expect(containersNamed(h, "a").map((x) => x.attempt)).toEqual([1, 2]);
    await h.rm.cleanUpContainersInPod(pod.metadata.uid!, { removeAll: true, signal: h.signal });
    expect(containersNamed(h, "a").map((x) => x.attempt)).toEqual([2]);
  });

  test("a gone pod loses its containers, sandboxes, log dir, pod dir and log symlinks after killPod", async () => {
    h.fake.onCreate((ctr) => {
      mkdirSync(dirname(ctr.logPath), { recursive: true });
      writeFileSync(ctr.logPath, "");
    });
    const pod = uniquePod({ containers: [c("a"), c("b")] });
    await h.sync(pod);
    const logDir = h.fake.state.sandboxes[0].logDirectory;
    await h.rm.killPod(pod, runningPodFromStatus(await h.status(pod)), { signal: h.signal });
    await h.rm.garbageCollect((uid) => uid === pod.metadata.uid, { signal: h.signal });
    expect(h.fake.state.containers).toEqual([]);
    expect(h.fake.state.sandboxes).toEqual([]);
    expect(existsSync(logDir)).toBe(false);
    expect(existsSync(join(h.dirs.podsDir, pod.metadata.uid!))).toBe(false);
    expect(readdirSync(h.dirs.containerLogsDir)).toEqual([]);
  });

  test("a gone pod's directory that still has a mount is left for the volume teardown, never removed through the mount", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    await h.rm.killPod(pod, runningPodFromStatus(await h.status(pod)), { signal: h.signal });
    // A subPath bind mount of a host directory that the teardown could not unmount.
    const hostDir = join(h.dirs.podsDir, "..", "host-data");
    mkdirSync(hostDir, { recursive: true });
    writeFileSync(join(hostDir, "keep"), "host");
    const target = join(h.dirs.podsDir, pod.metadata.uid!, "volume-subpaths", "data", "a", "0");
    mkdirSync(target, { recursive: true });
    expect(Bun.spawnSync(["mount", "--bind", hostDir, target]).exitCode).toBe(0);
    try {
      await h.rm.garbageCollect((uid) => uid === pod.metadata.uid, { signal: h.signal });
      expect(existsSync(join(hostDir, "keep"))).toBe(true);
      expect(existsSync(target)).toBe(true);
    } finally {
      Bun.spawnSync(["umount", target]);
    }
    await h.rm.garbageCollect((uid) => uid === pod.metadata.uid, { signal: h.signal });
    expect(existsSync(join(h.dirs.podsDir, pod.metadata.uid!))).toBe(false);
  });

  test("a pod that still exists keeps its newest sandbox even when it is not ready", async () => {
    const pod = uniquePod({ restartPolicy: "Never", containers: [c("a", { image: BUSYBOX })] });
    await h.sync(pod);
    h.fake.exitContainer(lastId("a"), 0);
    await h.sync(pod);
    await h.rm.garbageCollect(() => false, { signal: h.signal });
    expect(h.fake.state.sandboxes.length).toBe(1);
    expect(containersNamed(h, "a").length).toBe(1);
  });

  test("dangling log symlinks are removed, live ones kept", async () => {
    mkdirSync(h.dirs.containerLogsDir, { recursive: true });
    const target = join(h.dirs.root, "live.log");
    writeFileSync(target, "");
    symlinkSync(target, join(h.dirs.containerLogsDir, "live_ns_c-1.log"));
    symlinkSync(join(h.dirs.root, "gone.log"), join(h.dirs.containerLogsDir, "dead_ns_c-2.log"));
    await h.rm.garbageCollect(() => false, { signal: h.signal });
    expect(readdirSync(h.dirs.containerLogsDir)).toEqual(["live_ns_c-1.log"]);
  });
});
