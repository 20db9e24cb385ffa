import { create } from "@bufbuild/protobuf";
import { describe, expect, test } from "bun:test";
import { ContainerState, PodSandboxState, type Container, type ContainerStats, type PodSandbox } from "../../../src/cri/index.ts";
import { ContainerSchema, ContainerStatsSchema, PodSandboxSchema, SwapUsageSchema } from "../../../src/cri/testing.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { podStatsFromCri, type PodStatsSources } from "../../../src/stats/convert.ts";
import { CpuUsageCache } from "../../../src/stats/cpu-usage.ts";
import type { FsInfo } from "../../../src/stats/types.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const ns = (ms: number) => BigInt(ms) * 1_000_000n;

function sandbox(id: string, name: string, uid: string, createdMs: number, state = PodSandboxState.SANDBOX_READY): PodSandbox {
  return create(PodSandboxSchema, { id, metadata: { name, namespace: "default", uid, attempt: 0 }, state, createdAt: ns(createdMs) });
}

function container(id: string, sandboxId: string, name: string, createdMs: number, state = ContainerState.CONTAINER_RUNNING): Container {
  return create(ContainerSchema, { id, podSandboxId: sandboxId, metadata: { name }, state, createdAt: ns(createdMs) });
}

function stats(id: string, name: string, atMs: number, cpu: bigint, workingSet: bigint, extra: { usage?: bigint; layer?: bigint } = {}): ContainerStats {
  return create(ContainerStatsSchema, {
    attributes: { id, metadata: { name } },
    cpu: { timestamp: ns(atMs), usageCoreNanoSeconds: { value: cpu } },
    memory: { timestamp: ns(atMs), workingSetBytes: { value: workingSet }, ...(extra.usage !== undefined && { usageBytes: { value: extra.usage } }) },
    ...(extra.layer !== undefined && {
      writableLayer: { timestamp: ns(atMs), fsId: { mountpoint: "/snapshots" }, usedBytes: { value: extra.layer }, inodesUsed: { value: 10n } },
    }),
  });
}

const rootFs: FsInfo = { time: T0, capacityBytes: 1000_000n, availableBytes: 400_000n, usedBytes: 600_000n, inodes: 5000n, inodesFree: 4000n };
const snapshotFs: FsInfo = { ...rootFs, capacityBytes: 2000_000n };

function sources(clock: FakeClock, over: Partial<PodStatsSources> = {}): PodStatsSources {
  return {
    cpu: new CpuUsageCache(clock),
    rootFs,
    fsInfo: (m) => (m === "/snapshots" ? snapshotFs : undefined),
    logUsage: (pod, c) => (pod.name === "web" && c === "app" ? { usedBytes: 4096n, inodesUsed: 3n } : undefined),
    nowMs: T0,
    ...over,
  };
}

describe("CRI stats → Summary pods", () => {
  test("a pod with its containers, their CPU, memory, writable layer and logs, in the kubelet's fields", () => {
    const pods = podStatsFromCri(
      {
        sandboxes: [sandbox("s1", "web", "u1", T0 - 60_000)],
        containers: [container("c1", "s1", "app", T0 - 50_000)],
        stats: [stats("c1", "app", T0, 2_000_000_000n, 7_000_000n, { usage: 9_000_000n, layer: 8192n })],
      },
      sources(new FakeClock(T0)),
    );
    expect(pods).toEqual([
      {
        podRef: { name: "web", namespace: "default", uid: "u1" },
        startTime: "2026-01-01T11:59:00Z",
        containers: [
          {
            name: "app",
            startTime: "2026-01-01T11:59:10Z",
            cpu: { time: "2026-01-01T12:00:00Z", usageCoreNanoSeconds: 2_000_000_000n },
            memory: { time: "2026-01-01T12:00:00Z", workingSetBytes: 7_000_000n, usageBytes: 9_000_000n },
            rootfs: {
              time: "2026-01-01T12:00:00Z",
              availableBytes: 400_000n,
              capacityBytes: 2000_000n,
              inodesFree: 4000n,
              inodes: 5000n,
              usedBytes: 8192n,
              inodesUsed: 10n,
            },
            logs: { time: "2026-01-01T12:00:00Z", availableBytes: 400_000n, capacityBytes: 1000_000n, inodesFree: 4000n, inodes: 5000n, usedBytes: 4096n, inodesUsed: 3n },
          },
        ],
        cpu: { time: "2026-01-01T12:00:00Z", usageCoreNanoSeconds: 2_000_000_000n },
        memory: { time: "2026-01-01T12:00:00Z", workingSetBytes: 7_000_000n, usageBytes: 9_000_000n },
        "ephemeral-storage": {
          time: "2026-01-01T12:00:00Z",
          availableBytes: 400_000n,
          capacityBytes: 1000_000n,
          inodesFree: 4000n,
          inodes: 5000n,
          usedBytes: 8192n + 4096n,
          inodesUsed: 13n,
        },
      },
    ]);
  });

  test("the pod's CPU and memory are the sums of its containers'; a field no container has stays out", () => {
    const [pod] = podStatsFromCri(
      {
        sandboxes: [sandbox("s1", "web", "u1", T0)],
        containers: [container("c1", "s1", "app", T0), container("c2", "s1", "sidecar", T0)],
        stats: [stats("c1", "app", T0, 3n, 100n, { usage: 150n }), stats("c2", "sidecar", T0 + 1000, 4n, 20n)],
      },
      sources(new FakeClock(T0)),
    );
    expect(pod!.containers.map((c) => c.name)).toEqual(["app", "sidecar"]);
    expect(pod!.cpu).toEqual({ time: "2026-01-01T12:00:01Z", usageCoreNanoSeconds: 7n });
    expect(pod!.memory).toEqual({ time: "2026-01-01T12:00:01Z", workingSetBytes: 120n, usageBytes: 150n });
  });

  test("usageNanoCores appears from the second request on, per container and summed per pod", async () => {
    const clock = new FakeClock(T0);
    const src = sources(clock);
    const listing = (atMs: number, a: bigint, b: bigint) => ({
      sandboxes: [sandbox("s1", "web", "u1", T0)],
      containers: [container("c1", "s1", "app", T0), container("c2", "s1", "sidecar", T0)],
      stats: [stats("c1", "app", atMs, a, 1n), stats("c2", "sidecar", atMs, b, 1n)],
    });
    const [first] = podStatsFromCri(listing(T0, 1_000_000_000n, 0n), src);
    expect(first!.cpu?.usageNanoCores).toBeUndefined();
    await clock.advance(10_000);
    const [second] = podStatsFromCri(listing(T0 + 10_000, 6_000_000_000n, 1_000_000_000n), { ...src, nowMs: clock.now() });
    expect(second!.containers.map((c) => c.cpu?.usageNanoCores)).toEqual([500_000_000n, 100_000_000n]);
    expect(second!.cpu?.usageNanoCores).toBe(600_000_000n);
  });

  test("per pod UID the ready sandbox counts, and per container name the running container", () => {
    const pods = podStatsFromCri(
      {
        sandboxes: [sandbox("old", "web", "u1", T0 - 10_000, PodSandboxState.SANDBOX_NOTREADY), sandbox("new", "web", "u1", T0)],
        containers: [
          container("dead", "old", "app", T0 - 9000, ContainerState.CONTAINER_EXITED),
          container("live", "new", "app", T0 + 1000),
          container("exited1", "new", "job", T0 + 1000, ContainerState.CONTAINER_EXITED),
          container("exited2", "new", "job", T0 + 2000, ContainerState.CONTAINER_EXITED),
        ],
        stats: [stats("dead", "app", T0, 1n, 1n), stats("live", "app", T0, 2n, 2n), stats("exited1", "job", T0, 3n, 3n), stats("exited2", "job", T0, 4n, 4n)],
      },
      sources(new FakeClock(T0)),
    );
    expect(pods).toHaveLength(1);
    expect(pods[0]!.startTime).toBe("2026-01-01T12:00:00Z");
    expect(pods[0]!.containers.map((c) => [c.name, c.cpu?.usageCoreNanoSeconds])).toEqual([
      ["app", 2n],
      ["job", 4n],
    ]);
  });

  test("a pod without container stats is not listed, and stats of unknown containers are skipped", () => {
    const pods = podStatsFromCri(
      { sandboxes: [sandbox("s1", "web", "u1", T0)], containers: [container("c1", "s1", "app", T0)], stats: [stats("other", "x", T0, 1n, 1n)] },
      sources(new FakeClock(T0)),
    );
    expect(pods).toEqual([]);
  });

  test("without a root filesystem or logs, a container has no logs entry and the pod's storage is its writable layers", () => {
    const [pod] = podStatsFromCri(
      { sandboxes: [sandbox("s1", "db", "u2", T0)], containers: [container("c1", "s1", "pg", T0)], stats: [stats("c1", "pg", T0, 1n, 1n, { layer: 100n })] },
      sources(new FakeClock(T0), { rootFs: undefined, fsInfo: () => undefined }),
    );
    expect(pod!.containers[0]!.logs).toBeUndefined();
    expect(pod!.containers[0]!.rootfs).toEqual({ time: "2026-01-01T12:00:00Z", usedBytes: 100n, inodesUsed: 10n });
    expect(pod!["ephemeral-storage"]).toEqual({ time: "2026-01-01T12:00:00Z", usedBytes: 100n, inodesUsed: 10n });
  });

  test("CVE-2020-8557: the pod's managed /etc/hosts counts in its ephemeral storage (a container can fill the disk through it)", () => {
    const listing = { sandboxes: [sandbox("s1", "db", "u2", T0)], containers: [container("c1", "s1", "pg", T0)], stats: [stats("c1", "pg", T0, 1n, 1n, { layer: 100n })] };
    const etcHosts = { usedBytes: 50_000_000n, inodesUsed: 1n };
    const [pod] = podStatsFromCri(listing, sources(new FakeClock(T0), { etcHostsUsage: (uid) => (uid === "u2" ? etcHosts : undefined) }));
    expect(pod!["ephemeral-storage"]).toMatchObject({ usedBytes: 50_000_100n, inodesUsed: 11n });
    // A pod whose file is gone (host network with its own /etc/hosts mount) counts its containers only.
    const [without] = podStatsFromCri(listing, sources(new FakeClock(T0), { etcHostsUsage: () => undefined }));
    expect(without!["ephemeral-storage"]).toMatchObject({ usedBytes: 100n, inodesUsed: 10n });
  });

  test("swap: each container's from the CRI, the pod's the sum, the time the newest sample's (milliseconds kept)", () => {
    const withSwap = (id: string, name: string, atMs: number, used: bigint, available: bigint) => {
      const s = stats(id, name, atMs, 1n, 1n);
      s.swap = create(SwapUsageSchema, { timestamp: ns(atMs), swapUsageBytes: { value: used }, swapAvailableBytes: { value: available } });
      return s;
    };
    const [pod] = podStatsFromCri(
      {
        sandboxes: [sandbox("s1", "web", "u1", T0)],
        containers: [container("c1", "s1", "a", T0), container("c2", "s1", "b", T0)],
        stats: [withSwap("c1", "a", T0 + 250, 100n, 900n), withSwap("c2", "b", T0 + 1500, 50n, 950n)],
      },
      sources(new FakeClock(T0)),
    );
    expect(pod!.containers.map((c) => c.swap)).toEqual([
      { time: "2026-01-01T12:00:00.250Z", swapUsageBytes: 100n, swapAvailableBytes: 900n },
      { time: "2026-01-01T12:00:01.500Z", swapUsageBytes: 50n, swapAvailableBytes: 950n },
    ]);
    expect(pod!.swap).toEqual({ time: "2026-01-01T12:00:01.500Z", swapUsageBytes: 150n, swapAvailableBytes: 1850n });
  });
});
