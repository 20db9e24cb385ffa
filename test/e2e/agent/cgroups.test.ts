/**
 * Issue 25 (items 1-2) against a real containerd (1.6): dist/bunlet puts each pod in its pod
 * cgroup under kubepods (its per-test --cgroup-root), Burstable pods under burstable and
 * BestEffort ones under besteffort, with the kubelet's cpu.shares, cpu.cfs_quota_us,
 * memory.limit_in_bytes and pids.max; the burstable tier's shares follow its pods; kubepods
 * holds allocatable; a pod's cgroup goes with the pod; and a bunlet restarted with pods running
 * finds their cgroups and keeps them (and the containers in them).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResourceRequirements } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { labels } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { testCgroupRoot } from "../../harness/cgroups.ts";
import { agentFixture } from "./bunlet.ts";

/** A static pod as written by hand (no namespace): containers sleeping, with the given resources. */
const pod = (name: string, containers: { name: string; resources?: ResourceRequirements }[]) =>
  JSON.stringify(
    makePod({
      name,
      metadata: { namespace: undefined },
      spec: { terminationGracePeriodSeconds: 1, containers: containers.map((c) => ({ ...c, image: BUSYBOX_IMAGE, command: ["sleep", "3600"] })) },
    }),
  );
const burstable = pod("burst", [
  { name: "main", resources: { requests: { cpu: "100m", memory: "16Mi" }, limits: { cpu: "200m", memory: "64Mi" } } },
  { name: "side", resources: { requests: { cpu: "150m" }, limits: { cpu: "300m", memory: "32Mi" } } },
]);
const besteffort = pod("lazy", [{ name: "main" }]);

const KUBE_RESERVED = 100 * 1024 * 1024;
const fx = agentFixture({
  name: "cgroups",
  hostname: "e2e-node",
  waitTimeoutMs: 60_000,
  flags: ["--pod-max-pids=512", `--kube-reserved=cpu=100m,memory=${KUBE_RESERVED}`],
  startInBeforeAll: (f) => {
    writeFileSync(join(f.manifests, "burst.json"), burstable);
    writeFileSync(join(f.manifests, "lazy.json"), besteffort);
  },
});
const { waitFor } = fx;

const root = () => testCgroupRoot(join(fx.dir, "state"));
const v1 = (subsystem: string, ...path: string[]) => join("/sys/fs/cgroup", subsystem, root(), "kubepods", ...path);
const value = (subsystem: string, file: string, ...path: string[]) => readFileSync(join(v1(subsystem, ...path), file), "utf8").trim();

async function podOf(name: string) {
  const { items } = await fx.cri.runtime.listPodSandbox({ filter: { labelSelector: { [labels.KubernetesPodNameLabel]: `${name}-e2e-node` } } });
  const ready = items.find((s) => s.state === 0);
  if (!ready) return undefined;
  const { containers } = await fx.cri.runtime.listContainers({ filter: { podSandboxId: ready.id } });
  const running = containers.filter((c) => c.state === 1);
  return running.length === 0 ? undefined : { uid: ready.metadata?.uid ?? "", sandbox: ready.id, containers: running.map((c) => c.id).sort() };
}

describe("pod cgroups under kubepods", () => {
  test("a Burstable pod's sandbox and containers sit under kubepods/burstable/pod<uid>, with the kubelet's values", async () => {
    const p = await waitFor("burst running both containers", async () => {
      const found = await podOf("burst");
      return found && found.containers.length === 2 ? found : undefined;
    });
    const dir = ["burstable", `pod${p.uid}`];
    // containerd makes the sandbox's and each container's cgroup under the parent bunlet gave it.
    for (const subsystem of ["cpu", "memory", "pids"]) {
      expect(readdirSync(v1(subsystem, ...dir)).filter((d) => existsSync(join(v1(subsystem, ...dir), d, "cgroup.procs"))).sort()).toEqual([p.sandbox, ...p.containers].sort());
    }
    // 250m requested: 256 shares; every container limits CPU: 500m → quota 50000; memory 96Mi.
    expect(value("cpu", "cpu.shares", ...dir)).toBe("256");
    expect(value("cpu", "cpu.cfs_quota_us", ...dir)).toBe("50000");
    expect(value("cpu", "cpu.cfs_period_us", ...dir)).toBe("100000");
    expect(value("memory", "memory.limit_in_bytes", ...dir)).toBe(String(96 * 1024 * 1024));
    expect(value("pids", "pids.max", ...dir)).toBe("512");
    // The tier's shares are its pods' requests.
    expect(value("cpu", "cpu.shares", "burstable")).toBe("256");
  });

  test("a BestEffort pod sits under kubepods/besteffort with the minimum shares and no limits", async () => {
    const p = await waitFor("lazy running", () => podOf("lazy"));
    const dir = ["besteffort", `pod${p.uid}`];
    expect(existsSync(join(v1("cpu", ...dir), p.containers[0]!))).toBe(true);
    expect(value("cpu", "cpu.shares", ...dir)).toBe("2");
    expect(value("cpu", "cpu.cfs_quota_us", ...dir)).toBe("-1");
    expect(value("cpu", "cpu.shares", "besteffort")).toBe("2");
  });

  test("kubepods holds allocatable: capacity less kubeReserved (memory, CPU shares)", () => {
    const memTotal = Number(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"))![1]) * 1024;
    expect(value("memory", "memory.limit_in_bytes")).toBe(String(Math.floor((memTotal - KUBE_RESERVED) / 4096) * 4096));
    const cores = readFileSync("/proc/cpuinfo", "utf8").split("\n").filter((l) => l.startsWith("processor")).length;
    expect(value("cpu", "cpu.shares")).toBe(String(Math.floor(((cores * 1000 - 100) * 1024) / 1000)));
  });

  test("bunlet restarted with pods running finds their cgroups and keeps them and their containers", async () => {
    const before = await waitFor("burst running", () => podOf("burst"));
    fx.bunlet!.signal("SIGKILL");
    await fx.bunlet!.exited;
    await fx.start();
    await waitFor("the restarted bunlet's first housekeeping", () => fx.bunlet!.lines.some((l) => l.msg === "bunlet is running"));
    // Two sync periods later nothing was killed or moved.
    await Bun.sleep(4000);
    expect(await podOf("burst")).toEqual(before);
    expect(value("cpu", "cpu.shares", "burstable", `pod${before.uid}`)).toBe("256");
    expect(fx.bunlet!.lines.some((l) => l.msg === "Pod runs outside its pod cgroup; killing it so it restarts inside one")).toBe(false);
  });

  test("the pod cgroup is gone once the pod is, in every hierarchy", async () => {
    const p = await waitFor("lazy running", () => podOf("lazy"));
    rmSync(join(fx.manifests, "lazy.json"));
    await waitFor("lazy's pod cgroup removed", () =>
      ["cpu", "cpuacct", "cpuset", "memory", "pids", "systemd", "unified"].every((s) => !existsSync(v1(s, "besteffort", `pod${p.uid}`))),
    );
    // The burstable pod is untouched.
    expect(await podOf("burst")).toBeDefined();
  });
});
