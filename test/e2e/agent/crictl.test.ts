/**
 * `bunlet crictl` (issue 18.8) against a running dist/bunlet and its embedded containerd, found
 * from --root-dir: pods, ps, images, inspect, inspectp, logs, exec and stats print what crictl
 * prints (its columns, IDs, states and JSON), and agree with what the CRI itself reports.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PodList } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE, containerdPaths } from "../../../src/containerd/index.ts";
import { ContainerState, createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { killShims, unmountUnder } from "../../harness/cleanup.ts";
import { ensureImages, importImages } from "../../harness/images.ts";
import { allocateTestNetwork, type TestNetwork } from "../../harness/network.ts";
import { requireE2e } from "../../harness/require.ts";
import { binary, bunletWaiter, ensureBuilt, freePort, startBunlet, type BunletProcess } from "./bunlet.ts";

const STEP_MS = 180_000;
let dir = "";
let rootDir = "";
let net: TestNetwork | undefined;
let bunlet: BunletProcess | undefined;
let cri: CriClient;
let containerId = "";
let podId = "";

const waitFor = bunletWaiter(() => bunlet, 60_000);

function crictl(...args: string[]) {
  const p = Bun.spawnSync([binary, "crictl", `--root-dir=${rootDir}`, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

/** Splits a crictl table into its cells (columns are separated by at least three spaces). */
const cells = (line: string) => line.trim().split(/ {3,}/);

beforeAll(async () => {
  requireE2e();
  await ensureImages();
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "bunlet-crictl-"));
  rootDir = join(dir, "root");
  const manifests = join(dir, "manifests");
  mkdirSync(manifests);
  net = allocateTestNetwork();
  const port = await freePort();
  bunlet = await startBunlet(
    [
      `--root-dir=${rootDir}`,
      `--pod-manifest-path=${manifests}`,
      `--pod-logs-dir=${join(dir, "logs", "pods")}`,
      `--container-logs-dir=${join(dir, "logs", "containers")}`,
      "--hostname-override=crictl-node",
      `--pod-cidr=${net.podSubnet}`,
      `--cni-bridge-name=${net.bridgeName}`,
      "--file-check-frequency=1s",
      `--healthz-port=${await freePort()}`,
    ],
    port,
  );
  await waitFor("healthz ok", async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200);
  await importImages(containerdPaths(rootDir).socketPath);
  writeFileSync(
    join(manifests, "web.json"),
    JSON.stringify(
      makePod({
        name: "web",
        metadata: { namespace: undefined },
        container: { name: "main", image: BUSYBOX_IMAGE, command: ["sh", "-c", "echo hello; echo oops >&2; exec sleep 3600"] },
        spec: { terminationGracePeriodSeconds: 1 },
      }),
    ),
  );
  await waitFor("web Running", async () => {
    const list = (await (await fetch(`http://127.0.0.1:${port}/pods`)).json()) as PodList;
    return list.items.find((p) => p.metadata.name === "web-crictl-node" && p.status?.phase === "Running");
  });
  cri = createCriClient({ endpoint: `unix://${containerdPaths(rootDir).socketPath}` });
  const { containers } = await cri.runtime.listContainers({ filter: { state: { state: ContainerState.CONTAINER_RUNNING } } });
  containerId = containers[0].id;
  podId = containers[0].podSandboxId;
}, 180_000);

afterAll(async () => {
  cri?.close();
  if (bunlet) {
    bunlet.signal("SIGTERM");
    await bunlet.exited;
  }
  if (rootDir) killShims(containerdPaths(rootDir).socketPath);
  if (dir) unmountUnder(dir);
  net?.release();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("bunlet crictl on the embedded containerd (found from --root-dir)", () => {
  test("pods: crictl's columns, the pod Ready", () => {
    const r = crictl("pods");
    expect(r.code).toBe(0);
    const [header, row] = r.stdout.trimEnd().split("\n");
    expect(cells(header)).toEqual(["POD ID", "CREATED", "STATE", "NAME", "NAMESPACE", "ATTEMPT", "RUNTIME"]);
    expect(cells(row)).toEqual([podId.slice(0, 13), expect.stringMatching(/ ago$/), "Ready", "web-crictl-node", "default", "0", "(default)"]);
    expect(crictl("pods", "-q").stdout).toBe(`${podId}\n`);
    expect(crictl("pods", "--name", "^nomatch$", "-q").stdout).toBe("");
  }, STEP_MS);

  test("ps: crictl's columns; -q the full ID; -o json the CRI's own fields", () => {
    const r = crictl("ps");
    expect(r.code).toBe(0);
    const [header, row] = r.stdout.trimEnd().split("\n");
    expect(cells(header)).toEqual(["CONTAINER", "IMAGE", "CREATED", "STATE", "NAME", "ATTEMPT", "POD ID", "POD", "NAMESPACE"]);
    expect(cells(row)).toEqual([
      containerId.slice(0, 13),
      expect.stringMatching(/^[0-9a-f]{13}$/),
      expect.stringMatching(/ ago$/),
      "Running",
      "main",
      "0",
      podId.slice(0, 13),
      "web-crictl-node",
      "default",
    ]);
    expect(crictl("ps", "-q").stdout).toBe(`${containerId}\n`);
    expect(JSON.parse(crictl("ps", "-o", "json").stdout).containers[0]).toMatchObject({ id: containerId, state: "CONTAINER_RUNNING" });
  }, STEP_MS);

  test("images: the busybox and pause images by repository and tag", () => {
    const r = crictl("images");
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split("\n").map(cells);
    expect(rows[0]).toEqual(["IMAGE", "TAG", "IMAGE ID", "SIZE"]);
    expect(rows).toContainEqual(["docker.io/library/busybox", "1.36", expect.stringMatching(/^[0-9a-f]{13}$/), expect.stringMatching(/^[\d.]+[kMG]?B$/)]);
    expect(rows.some((row) => row[0] === "registry.k8s.io/pause")).toBe(true);
  }, STEP_MS);

  test("inspect and inspectp: crictl's JSON (status with RFC3339 times, runtime info)", () => {
    const c = crictl("inspect", containerId);
    expect(c.code).toBe(0);
    const container = JSON.parse(c.stdout);
    expect(Object.keys(container)).toEqual(["info", "status"]);
    expect(container.status).toMatchObject({ id: containerId, state: "CONTAINER_RUNNING", metadata: { name: "main", attempt: 0 } });
    expect(container.status.labels["io.kubernetes.pod.name"]).toBe("web-crictl-node");
    expect(container.status.startedAt).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    expect(container.status.finishedAt).toBe("0001-01-01T00:00:00Z");
    const p = crictl("inspectp", podId);
    expect(p.code).toBe(0);
    expect(JSON.parse(p.stdout).status).toMatchObject({ id: podId, state: "SANDBOX_READY", metadata: { name: "web-crictl-node", namespace: "default" } });
    expect(crictl("inspect", "-o", "table", containerId).stdout).toContain("State: CONTAINER_RUNNING\n");
  }, STEP_MS);

  test("logs: each stream to its own, --tail and --timestamps", () => {
    const r = crictl("logs", containerId);
    expect(r).toMatchObject({ code: 0, stdout: "hello\n", stderr: "oops\n" });
    // containerd copies the two streams side by side, so which line the file ends with is its
    // order, not the command's: --tail 1 gives the file's last entry on that entry's stream.
    const logPath = JSON.parse(crictl("inspect", containerId).stdout).status.logPath as string;
    const [time, stream, , text] = readFileSync(logPath, "utf8").trimEnd().split("\n").at(-1)!.split(" ", 4) as [string, string, string, string];
    const t = crictl("logs", "--tail", "1", "-t", containerId);
    expect({ stdout: t.stdout, stderr: t.stderr }).toEqual(stream === "stdout" ? { stdout: `${time} ${text}\n`, stderr: "" } : { stdout: "", stderr: `${time} ${text}\n` });
    expect(time).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  }, STEP_MS);

  test("logs -f follows what the container writes next, until interrupted", async () => {
    const follower = Bun.spawn([binary, "crictl", `--root-dir=${rootDir}`, "logs", "-f", containerId], { stdout: "pipe", stderr: "pipe" });
    let seen = "";
    const reading = (async () => {
      for await (const chunk of follower.stdout) seen += new TextDecoder().decode(chunk);
    })();
    await waitFor("the existing line", () => seen.includes("hello\n"));
    expect(crictl("exec", containerId, "sh", "-c", "echo later > /proc/1/fd/1").code).toBe(0);
    await waitFor("the new line", () => seen.includes("later\n"));
    follower.kill("SIGINT");
    expect(await follower.exited).toBe(0);
    await reading;
    expect(seen).toBe("hello\nlater\n");
  }, STEP_MS);

  test("exec: output and the command's exit status", () => {
    expect(crictl("exec", containerId, "sh", "-c", "echo hi; echo err >&2; exit 3")).toEqual({ code: 3, stdout: "hi\n", stderr: "err\n" });
    expect(crictl("exec", "-s", containerId, "cat", "/proc/1/cmdline")).toMatchObject({ code: 0, stdout: expect.stringContaining("sleep") });
  }, STEP_MS);

  test("exec -i: a session on the runtime's streaming server, with stdin and the exit status", () => {
    const p = Bun.spawnSync([binary, "crictl", `--root-dir=${rootDir}`, "exec", "-i", containerId, "sh", "-c", "read l; echo got:$l; echo e >&2; exit 4"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdin: new TextEncoder().encode("hello\n"),
      stdout: "pipe",
      stderr: "pipe",
      timeout: 30_000,
    });
    expect({ code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() }).toEqual({ code: 4, stdout: "got:hello\n", stderr: "e\n" });
  }, STEP_MS);

  test("exec -it: a TTY (script(1) gives crictl a terminal)", () => {
    const p = Bun.spawnSync(["script", "-qec", `${binary} crictl --root-dir=${rootDir} exec -it ${containerId} sh -c 'tty; exit 5'`, "/dev/null"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 30_000,
    });
    expect(p.stdout.toString()).toMatch(/\/dev\/pts\/\d+/);
    expect(p.exitCode).toBe(5);
  }, STEP_MS);

  test("stats: crictl's columns over a one-second sample", () => {
    const r = crictl("stats");
    expect(r.code).toBe(0);
    const [header, row] = r.stdout.trimEnd().split("\n");
    expect(cells(header)).toEqual(["CONTAINER", "NAME", "CPU %", "MEM", "DISK", "INODES", "SWAP"]);
    expect(cells(row)).toEqual([containerId.slice(0, 13), "main", expect.stringMatching(/^\d+\.\d\d$/), expect.stringMatching(/B$/), expect.stringMatching(/B$/), expect.stringMatching(/^\d+$/), expect.stringMatching(/B$/)]);
  }, STEP_MS);

  test("a command crictl has and bunlet crictl does not, or a bad flag, exits 1 naming it", () => {
    const r = crictl("runp", "pod.json");
    expect(r.code).toBe(1);
    expect(r.stderr).toStartWith('bunlet crictl: no such command "runp"');
    const bad = crictl("ps", "--bogus");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toStartWith("bunlet crictl ps: flag provided but not defined: --bogus\n");
  }, STEP_MS);
});
