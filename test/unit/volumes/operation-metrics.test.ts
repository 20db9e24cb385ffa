// storage_operation_duration_seconds: each volume's set-up and tear-down, timed by plugin.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "prom-client";
import { silentLogger } from "../../../src/lib/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { createVolumeManager } from "../../../src/volumes/manager.ts";
import type { Mounter } from "../../../src/volumes/mounter.ts";
import { makePod } from "../../fixtures/pods.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const noMounts: Mounter = {
  mountTmpfs: async () => {
    throw new Error("no tmpfs in this test");
  },
  unmount: async () => {},
  mountsUnder: () => [],
};

test("a set-up and a tear-down are one volume_mount and one volume_unmount per volume, failures as fail-unknown; the volumes to mount and mounted are counted", async () => {
  const podsDir = mkdtempSync(join(tmpdir(), "bunlet-volops-"));
  dirs.push(podsDir);
  const metrics = createMetrics(new Registry());
  const node = { nodeName: "n", hostIPs: [], cpuCapacityMilli: 1000, memoryCapacity: 2 ** 30 };
  const vm = createVolumeManager({ podsDir, node, recordEvent: () => {}, clock: new FakeClock(), log: silentLogger, mounter: noMounts, metrics });
  const pod = makePod({
    name: "p",
    namespace: "ns",
    metadata: { uid: "u1" },
    spec: {
      containers: [{ name: "c", volumeMounts: [{ name: "scratch", mountPath: "/s" }, { name: "cfg", mountPath: "/c" }, { name: "mem", mountPath: "/m" }] }],
      volumes: [
        { name: "scratch", emptyDir: {} },
        // Standalone: no API objects, so the ConfigMap cannot be read.
        { name: "cfg", configMap: { name: "x" } },
        { name: "mem", emptyDir: { medium: "Memory" } },
      ],
    },
  });
  await expect(vm.waitForAttachAndMount(pod)).rejects.toThrow();
  // Three to mount, one mounted (the ConfigMap cannot be read, the tmpfs not mounted here).
  expect(vm.totalVolumes().sort((a, b) => `${a.state}${a.plugin}`.localeCompare(`${b.state}${b.plugin}`))).toEqual([
    { plugin: "kubernetes.io/empty-dir", state: "actual_state_of_world", count: 1 },
    { plugin: "kubernetes.io/configmap", state: "desired_state_of_world", count: 1 },
    { plugin: "kubernetes.io/empty-dir", state: "desired_state_of_world", count: 2 },
  ]);
  await vm.unmountPodVolumes("u1");
  expect(vm.totalVolumes()).toEqual([]);
  expect(existsSync(join(podsDir, "u1", "volumes", "kubernetes.io~empty-dir"))).toBe(false);
  const counts = (await metrics.storageOperationDuration.get()).values
    .filter((v) => v.metricName === "storage_operation_duration_seconds_count")
    .map((v) => `${v.labels.volume_plugin} ${v.labels.operation_name} ${v.labels.status} ${v.labels.migrated} ${v.value}`)
    .sort();
  expect(counts).toEqual([
    "kubernetes.io/configmap volume_mount fail-unknown false 1",
    "kubernetes.io/empty-dir volume_mount fail-unknown false 1",
    "kubernetes.io/empty-dir volume_mount success false 1",
    "kubernetes.io/empty-dir volume_unmount success false 2",
  ]);
});
