// The built executable, run from a folder with no node_modules: --version, --help, the re-exec
// with JavaScriptCore's options, and the one-line, exit-2 answers to bad flags and bad config
// files. Builds dist/bunlet first when it is missing or older than the sources.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ensureTestCgroupRoot, removeTestCgroupRoot, testCgroupRoot } from "../harness/cgroups.ts";

const repo = join(import.meta.dir, "../..");
const binary = join(repo, "dist/bunlet");

function newestSourceMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function ensureBuilt(): void {
  const inputs = Math.max(
    newestSourceMtime(join(repo, "src")),
    statSync(join(repo, "package.json")).mtimeMs,
    statSync(join(repo, "scripts/build.sh")).mtimeMs,
  );
  if (existsSync(binary) && statSync(binary).mtimeMs >= inputs) return;
  const build = Bun.spawnSync(["bash", "scripts/build.sh"], { cwd: repo, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`npm run build failed (exit ${build.exitCode}):\n${build.stderr.toString()}`);
}

let dir = "";
let bin = "";

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "bunlet-cli-"));
  bin = join(dir, "bunlet");
  copyFileSync(binary, bin);
  Bun.spawnSync(["chmod", "+x", bin]);
}, 180_000);

/** The root dir of the eviction-threshold case: the root-dir lock is taken before the agent starts. */
const badThresholdRoot = join(tmpdir(), `bunlet-cli-badthr-${process.pid}`);

afterAll(() => {
  rmSync(badThresholdRoot, { recursive: true, force: true });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(...args: string[]) {
  // A bare environment and a folder without node_modules: the binary must carry everything.
  const p = Bun.spawnSync([bin, ...args], { cwd: dir, env: { PATH: "/usr/bin:/bin" }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

const header = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";

describe("dist/bunlet from a folder with no node_modules", () => {
  test("neither the folder nor any folder above it has node_modules", () => {
    for (let d = dir; ; d = dirname(d)) {
      expect(existsSync(join(d, "node_modules"))).toBe(false);
      if (d === dirname(d)) break;
    }
  });

  test("--version prints the version and exits 0", () => {
    const r = run("--version");
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toMatch(/^bunlet v\d+\.\d+\.\d+\S*\n$/);
  });

  test("--help prints the flags and exits 0", () => {
    const r = run("--help");
    expect(r.code).toBe(0);
    for (const flag of ["--config", "--pod-manifest-path", "--container-runtime-endpoint", "--read-only-port", "--feature-gates"]) {
      expect(r.stdout).toContain(flag);
    }
  });

  const bad: [string, string[], string, () => void][] = [
    ["an unknown flag", ["--no-such-flag"], "bunlet: unknown flag: --no-such-flag\n", () => {}],
    ["a malformed duration", ["--sync-frequency=5x"], 'bunlet: invalid value "5x" for flag --sync-frequency: unknown unit "x" in duration "5x"\n', () => {}],
    ["a bad config value", ["--config", "bad.yaml"], 'bunlet: bad.yaml: syncFrequency: invalid duration "abc"\n',
      () => writeFileSync(join(dir, "bad.yaml"), `${header}syncFrequency: abc\n`)],
    ["an unknown config field", ["--config=unknown.yaml"], "bunlet: unknown.yaml: staticPodDir: unknown field\n",
      () => writeFileSync(join(dir, "unknown.yaml"), `${header}staticPodDir: /etc/kubernetes/manifests\n`)],
    ["a missing config file", ["--config=/nonexistent/bunlet.yaml"], 'bunlet: cannot read config file "/nonexistent/bunlet.yaml": no such file or directory\n', () => {}],
    ["a kubelet flag with a bad value", ["--max-pods=lots"], 'bunlet: invalid value "lots" for flag --max-pods: expected an integer, found "lots"\n', () => {}],
    ["a klog flag the kubelet dropped", ["--logtostderr=false"], "bunlet: unknown flag: --logtostderr\n", () => {}],
    ["an eviction signal the kubelet does not have (checked before anything starts)", ["--eviction-hard=mem.available<1Gi", `--root-dir=${badThresholdRoot}`],
      "bunlet: eviction thresholds: unsupported eviction signal mem.available\n", () => {}],
    // This host runs no systemd as PID 1 (the test containers never do): checked before anything starts.
    ["cgroupDriver systemd where systemd is not the init system", ["--cgroup-driver=systemd", `--root-dir=${badThresholdRoot}`],
      'bunlet: cgroupDriver "systemd" needs systemd as the init system, and /run/systemd/system does not exist here; use --cgroup-driver=cgroupfs\n',
      () => {}],
  ];
  for (const [name, args, line, prepare] of bad) {
    test(`${name} exits 2 with exactly one line on stderr`, () => {
      prepare();
      const r = run(...args);
      expect(r).toEqual({ code: 2, stdout: "", stderr: line });
    });
  }
});

/**
 * The binary started with `flags`, a root and cgroup root of its own (so the test leaves no
 * /kubepods on the host) and an unreachable runtime, in a bare environment plus `env`; read until
 * it waits for the runtime, then stopped. Its stderr lines, the arguments it was given, and its
 * /proc environ and cmdline as they were while it ran.
 */
async function runUntilWaiting(name: string, flags: string[], env: Record<string, string> = {}) {
  const root = join(dir, name);
  const cgroupRoot = testCgroupRoot(root);
  ensureTestCgroupRoot(cgroupRoot);
  const args = [...flags, "--container-runtime-endpoint=unix:///nonexistent/containerd.sock", `--root-dir=${root}`, "--read-only-port=0", "--healthz-port=0", `--cgroup-root=${cgroupRoot}`];
  const p = Bun.spawn([bin, ...args], { cwd: dir, env: { PATH: "/usr/bin:/bin", ...env }, stdout: "pipe", stderr: "pipe" });
  const lines: string[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of p.stderr) {
    buffer += decoder.decode(chunk, { stream: true });
    lines.push(...buffer.split("\n").slice(0, -1));
    buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    // Past the start-up notices: it is waiting for the (missing) runtime.
    if (lines.some((l) => l.includes("does not answer yet"))) break;
  }
  const environ = readFileSync(`/proc/${p.pid}/environ`, "utf8").split("\0");
  const cmdline = readFileSync(`/proc/${p.pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  p.kill("SIGTERM");
  await p.exited;
  await removeTestCgroupRoot(cgroupRoot);
  return { lines, args, environ, cmdline };
}

describe("JavaScriptCore's options (boot/jsc-options.ts)", () => {
  test("the agent re-executes itself once with the DFG and FTL tiers off: the same pid, name, arguments and environment", async () => {
    const { environ, cmdline, args, lines } = await runUntilWaiting("jsc-default", [], { KEEP: "me" });
    expect(environ).toContain("BUN_JSC_useDFGJIT=0");
    expect(environ).toContain("BUN_JSC_useFTLJIT=0");
    expect(environ).toContain("KEEP=me");
    expect(cmdline).toEqual([bin, ...args]);
    expect(lines.join("\n")).not.toContain("could not re-execute");
  }, 60_000);

  test("a value the user set is kept", async () => {
    const { environ } = await runUntilWaiting("jsc-user", [], { BUN_JSC_useDFGJIT: "1", BUN_JSC_useFTLJIT: "1" });
    expect(environ).toContain("BUN_JSC_useDFGJIT=1");
    expect(environ).toContain("BUN_JSC_useFTLJIT=1");
    expect(environ).not.toContain("BUN_JSC_useDFGJIT=0");
    expect(environ).not.toContain("BUN_JSC_useFTLJIT=0");
  }, 60_000);
});

describe("a systemd drop-in written for the kubelet", () => {
  test("its flags start bunlet, and what bunlet does not act on is one warning at the default verbosity", async () => {
    // The ExecStart of a kubelet unit with 10-kubeadm.conf-style KUBELET_EXTRA_ARGS.
    const { lines } = await runUntilWaiting("dropin-root", [
      "--fail-swap-on=false",
      "--cgroup-driver=cgroupfs",
      "--eviction-hard=memory.available<100Mi",
      "--max-pods=50",
      "--pod-infra-container-image=registry.k8s.io/pause:3.9",
      "--resolv-conf=/etc/resolv.conf",
      "--cluster-dns=10.96.0.10",
    ]);
    const notes = lines.filter((l) => l.includes("not acted on by bunlet"));
    expect(notes).toHaveLength(1);
    // klog's text format: a warning line starts with W and the month and day.
    expect(notes[0]).toMatch(/^W\d{4} /);
    expect(notes[0]).toContain('settings="--fail-swap-on (failSwapOn)"');
    // It sets the embedded containerd's sandbox image; an external runtime keeps its own, and bunlet says so.
    const sandbox = lines.filter((l) => l.includes("--pod-infra-container-image applies to the embedded containerd only"));
    expect(sandbox).toHaveLength(1);
    expect(sandbox[0]).toContain('podInfraContainerImage="registry.k8s.io/pause:3.9"');
  }, 120_000);
});
