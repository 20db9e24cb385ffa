/**
 * Issue 18 item 9: dist/bunlet serves the kubelet's /stats/summary on the read-only port from a
 * real containerd's CRI stats: the static pod with its container, that container's CPU time and
 * working set, its writable layer and log usage, the pod's sums, and the node's CPU, memory,
 * filesystem and image filesystem; cadvisor's /spec/; /metrics/resource and /metrics/cadvisor.
 */
import { expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import type { PodList } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { agentFixture } from "./bunlet.ts";


// A static pod as written by hand (no namespace): some CPU and memory use, and a log line, before it settles.
const manifest = makePod({
  name: "stats",
  metadata: { namespace: undefined },
  container: { name: "worker", image: BUSYBOX_IMAGE, command: ["sh", "-c", "head -c 4000000 /dev/urandom | md5sum; exec sleep 3600"] },
  spec: { terminationGracePeriodSeconds: 2 },
});

interface Fs {
  time: string;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}
interface Cpu {
  time: string;
  usageNanoCores?: number;
  usageCoreNanoSeconds?: number;
}
interface Memory {
  time: string;
  workingSetBytes?: number;
  usageBytes?: number;
  availableBytes?: number;
}
interface ContainerStats {
  name: string;
  startTime: string;
  cpu?: Cpu;
  memory?: Memory;
  rootfs?: Fs;
  logs?: Fs;
}
interface Summary {
  node: { nodeName: string; systemContainers?: { name: string; cpu?: Cpu; memory?: Memory }[]; startTime: string; cpu?: Cpu; memory?: Memory; fs?: Fs; runtime?: { imageFs?: Fs } };
  pods: { podRef: { name: string; namespace: string; uid: string }; startTime: string; containers: ContainerStats[]; cpu?: Cpu; memory?: Memory; "ephemeral-storage"?: Fs }[];
}

async function summary(query = ""): Promise<Summary> {
  const res = await fetch(`http://127.0.0.1:${fx.bunlet!.readOnlyPort}/stats/summary${query}`);
  if (res.status !== 200) throw new Error(`/stats/summary answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Summary;
}

const statsPod = (s: Summary) => s.pods.find((p) => p.podRef.name === "stats-e2e-node" && p.podRef.namespace === "default");

const fx = agentFixture({
  name: "stats",
  hostname: "e2e-node",
  waitTimeoutMs: 60_000,
  startInBeforeAll: (f) => writeFileSync(join(f.manifests, "stats.json"), JSON.stringify(manifest)),
});
const { waitFor } = fx;

test("/stats/summary shows the static pod with its container's CPU, memory, rootfs and logs", async () => {
  // containerd has no CPU and memory numbers for a container in the moment after it started.
  const pod = await waitFor("the stats pod's worker with CPU, memory and its log written", async () => {
    const p = statsPod(await summary());
    const worker = p?.containers.find((c) => c.name === "worker");
    return worker?.logs?.usedBytes && worker.cpu && worker.memory ? p : undefined;
  });
  const pods = (await (await fetch(`http://127.0.0.1:${fx.bunlet!.readOnlyPort}/pods`)).json()) as PodList;
  expect(pod.podRef.uid).toBe(pods.items.find((p) => p.metadata.name === "stats-e2e-node")!.metadata.uid!);
  expect(pod.containers.map((c) => c.name)).toEqual(["worker"]);
  const worker = pod.containers[0]!;
  expect(worker.startTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(worker.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
  expect(worker.memory?.workingSetBytes).toBeGreaterThan(0);
  expect(worker.rootfs?.capacityBytes).toBeGreaterThan(0);
  expect(worker.rootfs?.usedBytes).toBeNumber();
  expect(worker.logs?.capacityBytes).toBeGreaterThan(0);
  // The pod's CPU and memory are its pod cgroup's, which holds the sandbox's pause as well as the
  // worker: more CPU time than the one container's (the sum of containers would be exactly it).
  expect(pod.cpu!.usageCoreNanoSeconds!).toBeGreaterThan(worker.cpu!.usageCoreNanoSeconds!);
  expect(pod.memory!.workingSetBytes!).toBeGreaterThan(0);
  expect(pod.memory!.usageBytes!).toBeGreaterThanOrEqual(pod.memory!.workingSetBytes!);
  // ...and the managed /etc/hosts, which the kubelet counts since CVE-2020-8557 (its blocks on disk).
  const etcHosts = statSync(join(fx.dir, "state", "pods", pod.podRef.uid, "etc-hosts")).blocks * 512;
  expect(etcHosts).toBeGreaterThan(0);
  expect(pod["ephemeral-storage"]?.usedBytes).toBe((worker.rootfs?.usedBytes ?? 0) + worker.logs!.usedBytes! + etcHosts);
}, 90_000);

test("a later request carries usageNanoCores, computed from the previous sample", async () => {
  const worker = await waitFor("a worker CPU rate", async () => {
    const w = statsPod(await summary())?.containers.find((c) => c.name === "worker");
    return w?.cpu?.usageNanoCores !== undefined ? w : undefined;
  });
  expect(worker.cpu!.usageNanoCores).toBeGreaterThanOrEqual(0);
  const node = (await summary()).node;
  expect(node.cpu?.usageNanoCores).toBeNumber();
}, 90_000);

test("the node's name, start time, CPU, memory, filesystem and image filesystem", async () => {
  // containerd counts the image filesystem's usage in the background (every 10 s or so): 0 until then.
  const { node } = await waitFor("containerd's first count of the image filesystem", async () => {
    const s = await summary();
    return s.node.runtime?.imageFs?.usedBytes ? s : undefined;
  });
  expect(node.nodeName).toBe("e2e-node");
  expect(node.startTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(node.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
  expect(node.memory?.workingSetBytes).toBeGreaterThan(0);
  expect(node.memory?.availableBytes).toBeGreaterThan(0);
  expect(node.fs?.capacityBytes).toBeGreaterThan(0);
  expect(node.fs?.availableBytes).toBeLessThanOrEqual(node.fs!.capacityBytes!);
  expect(node.runtime?.imageFs?.usedBytes).toBeGreaterThan(0);
  expect(node.runtime?.imageFs?.capacityBytes).toBeGreaterThan(0);
  // The system containers: kubepods as "pods", with its CPU and memory (and no limit: nothing reserved).
  const pods = node.systemContainers?.find((c) => c.name === "pods");
  expect(pods?.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
  expect(pods?.memory?.workingSetBytes).toBeGreaterThan(0);
}, 90_000);

test("?only_cpu_and_memory=true leaves the filesystems out", async () => {
  const s = await summary("?only_cpu_and_memory=true");
  expect(s.node.fs).toBeUndefined();
  expect(s.node.runtime).toBeUndefined();
  expect(s.node.memory?.workingSetBytes).toBeGreaterThan(0);
  const pod = statsPod(s);
  expect(pod?.["ephemeral-storage"]).toBeUndefined();
  expect(pod?.containers[0]?.rootfs).toBeUndefined();
  expect(pod?.containers[0]?.logs).toBeUndefined();
  expect(pod?.containers[0]?.memory?.workingSetBytes).toBeGreaterThan(0);
});

test("/spec/ gives the machine's cores, memory and identities", async () => {
  const res = await fetch(`http://127.0.0.1:${fx.bunlet!.readOnlyPort}/spec/`);
  expect(res.status).toBe(200);
  const spec = (await res.json()) as Record<string, unknown>;
  expect(spec.num_cores).toBe(cpus().length);
  expect(spec.memory_capacity).toBe(totalmem());
  expect(spec.boot_id).toBe(readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
});

/** The series of a Prometheus text: name{labels} → [value, timestamp ms]. */
function series(text: string): Map<string, [number, number | undefined]> {
  const out = new Map<string, [number, number | undefined]>();
  for (const line of text.split("\n")) {
    const m = /^(\S+?(?:\{.*\})?) (\S+)(?: (\d+))?$/.exec(line);
    if (m && !line.startsWith("#")) out.set(m[1]!, [Number(m[2]), m[3] === undefined ? undefined : Number(m[3])]);
  }
  return out;
}

test("/metrics/resource gives the Summary's CPU and working sets as the kubelet's families, with the stats' timestamps", async () => {
  const res = await fetch(`http://127.0.0.1:${fx.bunlet!.readOnlyPort}/metrics/resource`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4");
  const text = await res.text();
  const s = series(text);
  const labels = '{container="worker",namespace="default",pod="stats-e2e-node"}';
  const cpu = s.get(`container_cpu_usage_seconds_total${labels}`);
  const mem = s.get(`container_memory_working_set_bytes${labels}`);
  expect(cpu?.[0]).toBeGreaterThan(0);
  expect(mem?.[0]).toBeGreaterThan(0);
  // Timestamps are the stats' own, within the last minute.
  expect(Math.abs(Date.now() - cpu![1]!)).toBeLessThan(60_000);
  // The pod's is its pod cgroup's: the worker's and the pause's.
  expect(s.get('pod_cpu_usage_seconds_total{namespace="default",pod="stats-e2e-node"}')?.[0]).toBeGreaterThan(cpu![0]);
  expect(s.get(`container_start_time_seconds${labels}`)?.[1]).toBeUndefined();
  expect(s.get("node_cpu_usage_seconds_total")?.[0]).toBeGreaterThan(cpu![0]);
  expect(s.get("node_memory_working_set_bytes")?.[0]).toBeGreaterThan(mem![0]);
  expect(s.get("resource_scrape_error")).toEqual([0, undefined]);
  expect(text).toContain("# TYPE container_cpu_usage_seconds_total counter");
  // Against the Summary taken right after: the same container's counter, not more than a few seconds apart.
  const w = statsPod(await summary("?only_cpu_and_memory=true"))?.containers.find((c) => c.name === "worker");
  expect(w!.cpu!.usageCoreNanoSeconds! / 1e9).toBeGreaterThanOrEqual(cpu![0]);
});

test("/metrics/cadvisor shows the container, its pod sandbox with the pod's network, and the machine, labelled as cAdvisor labels them", async () => {
  const res = await fetch(`http://127.0.0.1:${fx.bunlet!.readOnlyPort}/metrics/cadvisor`);
  expect(res.status).toBe(200);
  const text = await res.text();
  const lines = text.split("\n");
  const worker = lines.find((l) => l.startsWith("container_cpu_usage_seconds_total{") && l.includes('container="worker"') && l.includes('pod="stats-e2e-node"'));
  expect(worker).toBeDefined();
  const labels = Object.fromEntries([...worker!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  expect(labels).toMatchObject({ cpu: "total", namespace: "default", image: "docker.io/library/busybox:1.36" });
  expect(labels.name).toMatch(/^[0-9a-f]{64}$/);
  // The cgroup containerd put the container in, as cAdvisor names it.
  expect(labels.id).toContain(labels.name!);
  expect(lines.some((l) => l.startsWith("container_memory_working_set_bytes{") && l.includes(`name="${labels.name}"`))).toBe(true);
  expect(lines.some((l) => l.startsWith("container_memory_rss{") && l.includes(`name="${labels.name}"`))).toBe(true);
  // The sandbox: container="", the pause image, its own id; the pod's network from its namespace
  // (a static pod on the host network, so the host's interfaces).
  const podCpu = lines.filter((l) => l.startsWith("container_cpu_usage_seconds_total{") && l.includes('container=""') && l.includes('pod="stats-e2e-node"'));
  expect(podCpu.some((l) => l.includes('image="registry.k8s.io/pause:3.10.2"'))).toBe(true);
  // ...and the pod cgroup itself (container="", name="", image=""), under kubepods.
  expect(podCpu.some((l) => l.includes('image=""') && l.includes('name=""') && /id="[^"]*\/kubepods\/[a-z]+\/pod[0-9a-f]+"/.test(l))).toBe(true);
  expect(lines.some((l) => l.startsWith("container_network_receive_bytes_total{") && l.includes('container=""') && l.includes('pod="stats-e2e-node"'))).toBe(true);
  expect(lines.some((l) => /^machine_cpu_cores\{boot_id="[^"]+",machine_id="[^"]*",system_uuid="[^"]*"\} \d+ \d+$/.test(l))).toBe(true);
  expect(lines).toContain("container_scrape_error 0");
});
