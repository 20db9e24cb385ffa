/**
 * One bunlet per --root-dir (issue 18.3): a second dist/bunlet on the root dir of a running one,
 * with its embedded containerd, exits 1 with one line naming the directory and the holder's pid,
 * and touches nothing (the first one's containerd keeps its pid, the first bunlet stays healthy).
 * With --exit-on-lock-contention on both, the newcomer takes over: the holder leaves with exit 0.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { containerdPaths } from "../../../src/containerd/index.ts";
import { killShims, unmountUnder } from "../../harness/cleanup.ts";
import { allocateTestNetwork, type TestNetwork } from "../../harness/network.ts";
import { requireE2e } from "../../harness/require.ts";
import { binary, bunletWaiter, ensureBuilt, freePort, startBunlet, type BunletProcess } from "./bunlet.ts";

const STEP_MS = 180_000;
let dir = "";
let rootDir = "";
let net: TestNetwork | undefined;
const started: BunletProcess[] = [];
let current: BunletProcess | undefined;

beforeAll(async () => {
  requireE2e();
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "bunlet-root-lock-"));
  rootDir = join(dir, "root");
  mkdirSync(join(dir, "manifests"));
  net = allocateTestNetwork();
}, 180_000);

afterAll(async () => {
  for (const b of started) {
    b.signal("SIGTERM");
    await b.exited;
  }
  if (rootDir) killShims(containerdPaths(rootDir).socketPath);
  if (dir) unmountUnder(dir);
  net?.release();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function flags(): Promise<string[]> {
  return [
    `--root-dir=${rootDir}`,
    `--pod-manifest-path=${join(dir, "manifests")}`,
    `--pod-logs-dir=${join(dir, "logs", "pods")}`,
    `--container-logs-dir=${join(dir, "logs", "containers")}`,
    "--hostname-override=locked",
    `--pod-cidr=${net!.podSubnet}`,
    `--cni-bridge-name=${net!.bridgeName}`,
    `--healthz-port=${await freePort()}`,
  ];
}

async function start(extra: string[] = []): Promise<BunletProcess> {
  const b = await startBunlet([...(await flags()), ...extra], await freePort());
  started.push(b);
  current = b;
  return b;
}

const waitFor = bunletWaiter(() => current, 60_000);
const healthy = (b: BunletProcess) => async () => (await fetch(`http://127.0.0.1:${b.readOnlyPort}/healthz`)).status === 200;

function containerdPids(): number[] {
  const out = Bun.spawnSync(["pgrep", "-f", `containerd --config ${join(rootDir, "containerd")}`]).stdout.toString().trim();
  return out === "" ? [] : out.split("\n").map(Number).sort();
}

describe("one bunlet per root directory", () => {
  test("a second bunlet on the same root dir exits 1 with one line naming the dir and the holder's pid, touching nothing", async () => {
    const first = await start();
    await waitFor("first bunlet healthy", healthy(first));
    const pids = containerdPids();
    expect(pids.length).toBe(1);

    // Default verbosity and text logs, as an operator runs it.
    const second = Bun.spawnSync([binary, ...(await flags()), `--read-only-port=${await freePort()}`], {
      env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin" },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 30_000,
    });
    expect(second.exitCode).toBe(1);
    const lines = second.stderr.toString().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(rootDir);
    expect(lines[0]).toContain(`pid ${first.pid}`);
    expect(second.stdout.toString()).toBe("");

    // Nothing of the first bunlet was touched.
    expect(containerdPids()).toEqual(pids);
    expect(await healthy(first)()).toBe(true);
    expect(first.lines.some((l) => String(l.msg).includes("stopping it"))).toBe(false);
    first.signal("SIGTERM");
    expect(await first.exited).toBe(0);
  }, STEP_MS);

  test("with --exit-on-lock-contention the holder hands over: it exits 0 and the newcomer runs", async () => {
    const holder = await start(["--exit-on-lock-contention"]);
    await waitFor("holder healthy", healthy(holder));
    const newcomer = await start(["--exit-on-lock-contention"]);
    expect(await holder.exited).toBe(0);
    expect(holder.lines.some((l) => String(l.msg).includes("Another bunlet asks for the root directory lock"))).toBe(true);
    await waitFor("newcomer healthy", healthy(newcomer));
    expect(newcomer.lines.some((l) => String(l.msg).includes("asked it to exit"))).toBe(true);
  }, STEP_MS);
});
