import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { instanceDirNamed, killContainerdOfGoneDirs } from "../../harness/cleanup.ts";
import { isAlive } from "../../harness/reap.ts";
import { waitFor } from "../../harness/wait.ts";

describe("instanceDirNamed: the test instance dir an argument names", () => {
  const cases: [string, string, string | undefined][] = [
    ["a file inside the dir", "/tmp/bunlet-managed-x1/containerd/config.toml", "/tmp/bunlet-managed-x1"],
    ["the dir itself", "/tmp/bunlet-managed-x1", "/tmp/bunlet-managed-x1"],
    ["inside a flag's value", "--root=/tmp/bunlet-agent-e2e-ab/state", "/tmp/bunlet-agent-e2e-ab"],
    ["another prefix", "/tmp/other-x/config.toml", undefined],
    ["the same name elsewhere", "/var/tmp/bunlet-managed-x1/config.toml", undefined],
    ["no path", "--config", undefined],
  ];
  for (const [name, arg, want] of cases) test(name, () => expect(instanceDirNamed(arg, "/tmp", "bunlet-")).toBe(want));
});

describe("killContainerdOfGoneDirs", () => {
  const root = mkdtempSync(join(tmpdir(), "reap-test-"));
  const here = join(root, "bunlet-here");
  const gone = join(root, "bunlet-gone");
  mkdirSync(here);
  const spawned: Bun.Subprocess[] = [];
  /** A bash that runs `sleep` as its child, shown as `argv0 args…` in /proc/<pid>/cmdline. */
  const fake = (argv0: string, ...args: string[]) => {
    const p = Bun.spawn(["/bin/bash", "-c", "sleep 600; true", ...args], { argv0, stdout: "ignore", stderr: "ignore" });
    spawned.push(p);
    return p;
  };
  const childrenOf = (pid: number) =>
    readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean).map(Number);
  /**
   * The fake's child once it runs `sleep`: until its exec, a forked bash still shows its parent's
   * command line, and would be taken for one more containerd of the gone dir.
   */
  const sleeping = (pid: number) =>
    childrenOf(pid).find((child) => {
      try {
        return readFileSync(`/proc/${child}/cmdline`, "utf8").startsWith("sleep\0");
      } catch {
        return false;
      }
    });

  afterAll(() => {
    // The sleeps first: killing a bash leaves its child running for its 600 s.
    for (const p of spawned) {
      let children: number[] = [];
      try {
        children = childrenOf(p.pid);
      } catch {
        // Gone already (the test under test killed it).
      }
      for (const child of children) {
        try {
          process.kill(child, "SIGKILL");
        } catch {
          // Exited meanwhile.
        }
      }
      p.kill("SIGKILL");
    }
    rmSync(root, { recursive: true, force: true });
  });

  test("kills the containerds and shims (with their children) of a gone dir, and nothing else", async () => {
    const containerd = fake("containerd", "--config", join(gone, "containerd", "config.toml"));
    const shim = fake("/usr/bin/containerd-shim-runc-v2", "-namespace", "k8s.io", "-address", join(gone, "containerd", "containerd.sock"));
    const live = fake("containerd", "--config", join(here, "containerd", "config.toml"));
    const other = fake("kube-apiserver", `--etcd-servers-file=${join(gone, "etcd")}`);
    const shimChild = await waitFor("the shim's child running sleep", () => sleeping(shim.pid));
    for (const p of [containerd, live, other]) await waitFor("the fake's child running sleep", () => sleeping(p.pid));

    expect(killContainerdOfGoneDirs(root, "bunlet-").sort()).toEqual([containerd.pid, shim.pid].sort());
    await containerd.exited;
    await shim.exited;
    await waitFor("the shim's child gone", () => !isAlive(shimChild));
    expect([live, other].map((p) => p.exitCode)).toEqual([null, null]);
    expect(isAlive(live.pid) && isAlive(other.pid)).toBe(true);
  });
});
