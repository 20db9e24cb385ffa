// The managed containerd against the real binary: start-up, readiness, restart after a crash,
// and a stop that leaves containers running in their shims (as k3s does).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUSYBOX_IMAGE, containerdPaths, startManagedContainerd, type ManagedContainerd } from "../../src/containerd/index.ts";
import { createCriClient } from "../../src/cri/index.ts";
import { createMemoryLogger } from "../../src/lib/testing.ts";
import { deleteLink, killShims, unmountUnder } from "../harness/cleanup.ts";
import { criVersionProbe } from "../harness/containerd.ts";
import { ensureImages, importImages, runCommand } from "../harness/images.ts";
import { allocateTestNetwork, type TestNetwork } from "../harness/network.ts";
import { isAlive, reapAbandoned, writeOwner } from "../harness/reap.ts";
import { requireE2e } from "../harness/require.ts";
import { waitFor } from "../harness/wait.ts";

// ctr puts a task in the cgroup /<namespace>/<id>: an id of its own per test process, so two test
// runs on one host (CI jobs, engineers) never share one and kill each other's task.
const TASK_ID = `bunlet-e2e-shim-${process.pid}`;

function ppidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** Pids of every live process whose command line mentions `needle`. */
function pidsMentioning(needle: string): number[] {
  return readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return readFileSync(`/proc/${e}/cmdline`, "utf8").includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Polls a condition that depends on another process; fails with `what` after `ms`. */
async function eventually(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  await waitFor(what, check, { timeoutMs: ms, intervalMs: 50 });
}

async function taskPid(socketPath: string): Promise<number> {
  const out = await runCommand(["ctr", "--address", socketPath, "-n", "k8s.io", "tasks", "ls"]);
  const line = out.split("\n").find((l) => l.startsWith(TASK_ID));
  if (!line) throw new Error(`task ${TASK_ID} not listed by ctr tasks ls:\n${out}`);
  return Number(line.split(/\s+/)[1]);
}

describe("managed containerd", () => {
  let rootDir: string;
  let net: TestNetwork;
  let managed: ManagedContainerd | undefined;
  const log = createMemoryLogger();
  const start = (probe: (signal: AbortSignal) => Promise<void>, signal?: AbortSignal) =>
    startManagedContainerd({ rootDir, log, probe, signal, bridgeName: net.bridgeName, podSubnet: net.podSubnet, registryMirrors: [] });

  beforeAll(async () => {
    requireE2e();
    await ensureImages();
    reapAbandoned();
    rootDir = mkdtempSync(join(tmpdir(), "bunlet-managed-"));
    net = allocateTestNetwork();
    const socketPath = containerdPaths(rootDir).socketPath;
    writeOwner(rootDir, { ownerPid: process.pid, socketPath, bridgeName: net.bridgeName, podSubnet: net.podSubnet, lockFile: net.lockFile });
  });

  afterAll(async () => {
    if (!rootDir) return;
    const socketPath = containerdPaths(rootDir).socketPath;
    // Reattach to the shims left running by stop(), then remove the task through containerd.
    const probe = criVersionProbe(`unix://${socketPath}`);
    try {
      managed = await start(probe.probe);
      const ctr = ["ctr", "--address", socketPath, "-n", "k8s.io"];
      await runCommand([...ctr, "tasks", "rm", "-f", TASK_ID]).catch(() => {});
      await runCommand([...ctr, "containers", "rm", TASK_ID]).catch(() => {});
    } finally {
      await managed?.stop();
      probe.close();
      killShims(socketPath);
      unmountUnder(rootDir);
      rmSync(rootDir, { recursive: true, force: true });
      deleteLink(net.bridgeName);
      net.release();
    }
  });

  test("containerd refuses a missing binary with the install command", async () => {
    const probe = async () => {};
    const missing = startManagedContainerd({ rootDir, log, probe, containerdPath: "/nonexistent/containerd" });
    await expect(missing).rejects.toThrow("apt-get install containerd runc containernetworking-plugins");
  });

  test("a probe that never answers fails start-up naming the socket and the log", async () => {
    const probe = async () => {
      throw new Error("not yet");
    };
    const dir = mkdtempSync(join(tmpdir(), "bunlet-noready-"));
    try {
      const paths = containerdPaths(dir);
      const failing = startManagedContainerd({ rootDir: dir, log, probe, readyTimeoutMs: 300, registryMirrors: [] });
      await expect(failing).rejects.toThrow(`did not answer on unix://${paths.socketPath} within 300 ms`);
      await failing.catch((err: Error) => expect(err.message).toContain(paths.logFile));
      expect(pidsMentioning(paths.configFile)).toEqual([]);
    } finally {
      unmountUnder(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a root dir too deep for a unix socket path gets its socket under /run and still answers", async () => {
    const deep = join(mkdtempSync(join(tmpdir(), "bunlet-deep-")), "d".repeat(60), "e".repeat(20));
    const paths = containerdPaths(deep);
    expect(paths.socketPath).toStartWith("/run/bunlet-");
    const probe = criVersionProbe(`unix://${paths.socketPath}`);
    let deepManaged: ManagedContainerd | undefined;
    try {
      deepManaged = await startManagedContainerd({ rootDir: deep, log, probe: probe.probe, bridgeName: net.bridgeName, podSubnet: net.podSubnet, registryMirrors: [] });
      expect(deepManaged.endpoint).toBe(`unix://${paths.socketPath}`);
      expect(log.lines.some((l) => l.msg === "containerd socket moved to a shorter path")).toBe(true);
    } finally {
      await deepManaged?.stop();
      probe.close();
      const top = join(deep, "..", "..");
      unmountUnder(top);
      rmSync(top, { recursive: true, force: true });
      rmSync(join(paths.socketPath, ".."), { recursive: true, force: true });
    }
  });

  test("starts, restarts after SIGKILL, and stops without stopping the containers' shims", async () => {
    const paths = containerdPaths(rootDir);
    const probe = criVersionProbe(`unix://${paths.socketPath}`);
    try {
      managed = await start(probe.probe);
      expect(managed.endpoint).toBe(`unix://${paths.socketPath}`);
      expect(managed.state).toBe("ready");
      const cri = createCriClient({ endpoint: managed.endpoint });
      try {
        expect((await cri.runtime.version({})).runtimeName).toBe("containerd");
      } finally {
        cri.close();
      }
      expect(readFileSync(paths.pidFile, "utf8").trim()).toBe(String(managed.pid));

      // A container outside CRI gives us a shim to watch.
      await importImages(paths.socketPath);
      await runCommand(["ctr", "--address", paths.socketPath, "-n", "k8s.io", "run", "--detach", BUSYBOX_IMAGE, TASK_ID, "sleep", "600"]);
      const task = await taskPid(paths.socketPath);
      const shim = ppidOf(task);
      expect(readFileSync(`/proc/${shim}/cmdline`, "utf8")).toContain("containerd-shim-runc-v2");

      // Crash: the supervisor restarts containerd, which reconnects to the running shim.
      const first = managed.pid!;
      process.kill(first, "SIGKILL");
      await eventually("containerd restarted and ready", () => managed!.state === "ready" && managed!.pid !== first);
      expect(managed.restarts).toBe(1);
      expect(log.lines.some((l) => l.msg === "containerd exited unexpectedly; restarting it" && l.signal === "SIGKILL")).toBe(true);
      expect(await taskPid(paths.socketPath)).toBe(task);

      // Stop: containerd is gone, the shim and its container are not.
      const second = managed.pid!;
      await managed.stop();
      expect(managed.state).toBe("stopped");
      expect(isAlive(second)).toBe(false);
      expect(pidsMentioning(paths.configFile)).toEqual([]);
      expect(isAlive(shim)).toBe(true);
      expect(isAlive(task)).toBe(true);
      expect(readFileSync(`/proc/${task}/cmdline`, "utf8")).toContain("sleep");
    } finally {
      await managed?.stop();
      probe.close();
    }
  }, 120_000); // a start (which runs `containerd --version` first), an image import, a restart after a 1 s backoff

  test("a containerd left behind by a previous run is stopped before starting a new one; aborting the signal stops ours", async () => {
    const paths = containerdPaths(rootDir);
    const lifetime = new AbortController();
    // What a crashed bunlet leaves: a containerd on our config, recorded in the pid file.
    const orphan = Bun.spawn(["containerd", "--config", paths.configFile], { stdout: "ignore", stderr: "ignore" });
    writeFileSync(paths.pidFile, `${orphan.pid}\n`);
    const probe = criVersionProbe(`unix://${paths.socketPath}`);
    try {
      await eventually("the orphan containerd answers", () => probe.probe(AbortSignal.timeout(1000)).then(() => true, () => false));
      managed = await start(probe.probe, lifetime.signal);
      expect(orphan.exitCode ?? orphan.signalCode).not.toBeNull();
      expect(isAlive(orphan.pid)).toBe(false);
      expect(managed.pid).not.toBe(orphan.pid);
      expect(log.lines.some((l) => l.msg === "a containerd from a previous bunlet run is still running; stopping it")).toBe(true);
      const pid = managed.pid!;
      lifetime.abort();
      await managed.stop(); // the stop the abort began
      expect(isAlive(pid)).toBe(false);
      expect(managed.restarts).toBe(0);
    } finally {
      orphan.kill("SIGKILL");
      await managed?.stop();
      managed = undefined;
      probe.close();
    }
  });
});
