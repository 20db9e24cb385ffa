import { create } from "@bufbuild/protobuf";
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CriClient } from "../../../src/cri/index.ts";
import { ContainerSchema, ContainerStatsSchema, PodSandboxSchema } from "../../../src/cri/testing.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { createCadvisorSource } from "../../../src/stats/cadvisor-source.ts";

const T = 1_700_000_000_000;
const ns = (ms: number) => BigInt(ms) * 1_000_000n;

function setup(withStats: string[], statusFails = false) {
  const root = mkdtempSync(join(tmpdir(), "cadvisor-src-"));
  // The sandbox sits in a pod cgroup (v2 layout): both have CPU and memory files.
  for (const dir of ["kubepods/podu1", "kubepods/podu1/s1"]) {
    mkdirSync(join(root, "cg", dir), { recursive: true });
    writeFileSync(join(root, "cg", dir, "cpu.stat"), "usage_usec 2000000\n");
    writeFileSync(join(root, "cg", dir, "memory.current"), "1000\n");
    writeFileSync(join(root, "cg", dir, "memory.stat"), "anon 400\ninactive_file 100\n");
  }
  mkdirSync(join(root, "proc", "42", "net"), { recursive: true });
  writeFileSync(join(root, "proc", "42", "net", "dev"), "h1\nh2\n  eth0: 700 7 0 0 0 0 0 0 300 3 0 0 0 0 0 0\n");
  const info = (o: object) => ({ info: { info: JSON.stringify(o) } });
  const cri = {
    runtime: {
      listPodSandbox: async () => ({ items: [create(PodSandboxSchema, { id: "s1", metadata: { name: "web", namespace: "default", uid: "u1" }, createdAt: ns(T - 60_000) })] }),
      listContainers: async () => ({
        containers: ["c1", "c2"].map((id) => create(ContainerSchema, { id, podSandboxId: "s1", metadata: { name: id === "c1" ? "app" : "late" }, createdAt: ns(T - 30_000) })),
      }),
      listContainerStats: async () => ({
        stats: withStats.map((id) => create(ContainerStatsSchema, { attributes: { id }, cpu: { timestamp: ns(T - 500), usageCoreNanoSeconds: { value: 3_000_000_000n } } })),
      }),
      containerStatus: async () => {
        if (statusFails) throw new Error("ContainerStatus: unavailable");
        return { status: { image: { image: "docker.io/library/busybox:1.36" } }, ...info({ pid: 43, runtimeSpec: { linux: { cgroupsPath: "/kubepods/podu1/c1" } } }) };
      },
      podSandboxStatus: async () => info({ pid: 42, image: "registry.k8s.io/pause:3.10", runtimeSpec: { linux: { cgroupsPath: "/kubepods/podu1/s1" } } }),
    },
  } as unknown as Pick<CriClient, "runtime">;
  const machineInfo = async () => ({ timestamp: new Date(T).toISOString(), num_cores: 2, num_physical_cores: 2, num_sockets: 1, memory_capacity: 4096n, machine_id: "m", system_uuid: "u", boot_id: "b" });
  return createCadvisorSource({ cri, clock: new FakeClock(T), machineInfo, cgroupRoot: join(root, "cg"), procRoot: join(root, "proc") });
}

test("the container from CRI stats, the sandbox and the pod cgroup from cgroupfs with the pod's network", async () => {
  const lines = (await setup(["c1"]).metrics()).split("\n");
  const app = 'container="app",cpu="total",id="/kubepods/podu1/c1",image="docker.io/library/busybox:1.36",name="c1",namespace="default",pod="web"';
  expect(lines).toContain(`container_cpu_usage_seconds_total{${app}} 3 ${T - 500}`);
  expect(lines).toContain(`container_cpu_usage_seconds_total{container="",cpu="total",id="/kubepods/podu1/s1",image="registry.k8s.io/pause:3.10",name="s1",namespace="default",pod="web"} 2 ${T}`);
  expect(lines).toContain(`container_memory_working_set_bytes{container="",id="/kubepods/podu1",image="",name="",namespace="default",pod="web"} 900 ${T}`);
  expect(lines).toContain(`container_network_receive_bytes_total{container="",id="/kubepods/podu1",image="",interface="eth0",name="",namespace="default",pod="web"} 700 ${T}`);
  // The container started after the stats were listed is left out without an error.
  expect(lines.some((l) => l.includes('container="late"'))).toBe(false);
  expect(lines).toContain("container_scrape_error 0");
});

test("a container whose status cannot be read is left out and container_scrape_error is 1", async () => {
  const lines = (await setup(["c1"], true).metrics()).split("\n");
  expect(lines.some((l) => l.includes('container="app"'))).toBe(false);
  expect(lines).toContain("container_scrape_error 1");
  expect(lines.some((l) => l.startsWith("container_cpu_usage_seconds_total{") && l.includes('name="s1"'))).toBe(true);
});
