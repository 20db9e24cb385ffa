/**
 * Issue 25 (item 3) against a real containerd 2.x: with --system-reserved leaving 256Mi to the
 * pods and enforceNodeAllocatable=pods (the default), kubepods is limited to 256Mi; a BestEffort
 * pod (no limit of its own) that allocates past it is OOM-killed inside kubepods, while a process
 * outside kubepods holding more than that stays untouched. The pod sits under
 * kubepods/besteffort/pod<uid> on containerd 2 too.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { labels } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { testCgroupRoot } from "../../harness/cgroups.ts";
import { agentFixture } from "./bunlet.ts";

const MI = 1024 * 1024;
const memTotal = Number(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"))![1]) * 1024;
const FOR_PODS = 256 * MI;

/** A static pod as written by hand (no namespace), BestEffort. */
const hog = makePod({
  name: "hog",
  metadata: { namespace: undefined },
  // tail keeps a stream without newlines in memory: 400Mi, past kubepods' 256Mi.
  container: { name: "main", image: BUSYBOX_IMAGE, command: ["sh", "-c", "sleep 2; head -c 400m /dev/zero | tail"] },
  spec: { restartPolicy: "Never" },
});

const fx = agentFixture({
  name: "allocatable",
  hostname: "e2e-node",
  waitTimeoutMs: 60_000,
  containerdVersion: "2",
  flags: [`--system-reserved=memory=${memTotal - FOR_PODS}`],
});

// A process outside kubepods holding more than kubepods may: the limit must not reach it.
const outside = Bun.spawn([process.execPath, "-e", `const b = Buffer.alloc(${300 * MI}, 1); setInterval(() => b[0]++, 1000);`], { stdout: "ignore", stderr: "ignore" });
afterAll(() => outside.kill("SIGKILL"));

const kubepods = (...p: string[]) => join("/sys/fs/cgroup/memory", testCgroupRoot(join(fx.dir, "state")), "kubepods", ...p);

test("kubepods is limited to capacity less systemReserved; a pod past it is OOM-killed inside kubepods, a process outside is not", async () => {
  await fx.start();
  await fx.waitFor("kubepods made", () => existsSync(join(kubepods(), "memory.limit_in_bytes")));
  expect(Number(readFileSync(join(kubepods(), "memory.limit_in_bytes"), "utf8"))).toBe(Math.floor(FOR_PODS / 4096) * 4096);
  writeFileSync(join(fx.manifests, "hog.json"), JSON.stringify(hog));

  const exited = await fx.waitFor("hog's container ended", async () => {
    const { containers } = await fx.cri.runtime.listContainers({ filter: { labelSelector: { [labels.KubernetesPodNameLabel]: "hog-e2e-node" } } });
    const c = containers[0];
    if (!c) return undefined;
    const { status, info } = await fx.cri.runtime.containerStatus({ containerId: c.id, verbose: true });
    return status?.state === 2 ? { status, id: c.id, uid: c.labels[labels.KubernetesPodUIDLabel], info } : undefined;
  });
  expect(exited.status.reason).toBe("OOMKilled");
  expect(Number(readFileSync(join(kubepods(), "memory.failcnt"), "utf8"))).toBeGreaterThan(0);
  // The pod is BestEffort: its cgroup sat under besteffort, with no limit of its own.
  const spec = JSON.parse(exited.info.info ?? "{}").runtimeSpec as { linux: { cgroupsPath: string } };
  expect(spec.linux.cgroupsPath).toBe(`${testCgroupRoot(join(fx.dir, "state"))}/kubepods/besteffort/pod${exited.uid}/${exited.id}`);
  // Still alive, and still holding its memory.
  expect(outside.exitCode).toBeNull();
  expect(outside.killed).toBe(false);
}, 120_000);
