// The stats provider's Summary: what it asks the runtime for. The summary without pods (the
// eviction manager's rounds that neither rank pods nor check their limits, image GC) reads the
// node's figures only: no runtime list, no walk of the pods' directories.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStatsProvider, type StatsProviderDeps } from "../../../src/stats/provider.ts";
import { FakeClock } from "../../../src/lib/testing.ts";

const root = mkdtempSync(join(tmpdir(), "bunlet-stats-provider-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function provider() {
  const calls: string[] = [];
  const listed = <T>(name: string, answer: T) => async () => {
    calls.push(name);
    return answer;
  };
  const cri = {
    runtime: {
      listPodSandbox: listed("ListPodSandbox", { items: [] }),
      listContainers: listed("ListContainers", { containers: [] }),
      listContainerStats: listed("ListContainerStats", { stats: [] }),
    },
    image: {
      imageFsInfo: listed("ImageFsInfo", { imageFilesystems: [{ timestamp: 0n, fsId: { mountpoint: root }, usedBytes: { value: 5n }, inodesUsed: { value: 2n } }] }),
    },
  } as unknown as StatsProviderDeps["cri"];
  const stats = createStatsProvider({ cri, clock: new FakeClock(), nodeName: "node-a", rootDir: root, podLogsDir: join(root, "logs") });
  return { stats, calls };
}

test("a summary lists the pods' sandboxes, containers and stats, and the image filesystem", async () => {
  const { stats, calls } = provider();
  const summary = await stats.summary();
  expect(calls.sort()).toEqual(["ImageFsInfo", "ListContainerStats", "ListContainers", "ListPodSandbox"]);
  expect(summary.pods).toEqual([]);
});

test("without pods: the node's memory, filesystems and image filesystem, and no runtime list", async () => {
  const { stats, calls } = provider();
  const summary = await stats.summary({ withoutPods: true });
  expect(calls).toEqual(["ImageFsInfo"]);
  expect(summary.pods).toEqual([]);
  const { node } = summary;
  expect(node.nodeName).toBe("node-a");
  expect(node.memory?.availableBytes).toBeGreaterThan(0n);
  expect(node.fs?.capacityBytes).toBeGreaterThan(0n);
  expect(node.runtime?.imageFs).toMatchObject({ usedBytes: 5n, inodesUsed: 2n });
  expect(node.runtime?.imageFs?.capacityBytes).toBe(node.fs?.capacityBytes);
  expect(node.rlimit?.maxpid).toBeGreaterThan(0n);
});

test("without pods and filesystems (only_cpu_and_memory): the node's CPU and memory alone", async () => {
  const { stats, calls } = provider();
  const { node, pods } = await stats.summary({ withoutPods: true, onlyCpuAndMemory: true });
  expect(calls).toEqual([]);
  expect(pods).toEqual([]);
  expect(node.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0n);
  expect(node.fs).toBeUndefined();
  expect(node.runtime).toBeUndefined();
});
