// bunlet as a process: SIGTERM ends it promptly even while CRI calls hang, because every call
// the agent makes carries the agent's AbortSignal (none may wait for the CRI timeout).
import { afterEach, beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import { makeDirs, type TestDirs } from "./helpers.ts";

const BUN = join(import.meta.dir, "../../../node_modules/.bin/bun");
const MAIN = join(import.meta.dir, "../../../src/main.ts");
const HANG_MS = 10 * 60_000;

let fake: FakeCri;
let dirs: TestDirs;
let child: ReturnType<typeof Bun.spawn> | undefined;

beforeEach(async () => {
  fake = await startFakeCri();
  dirs = makeDirs();
});

afterEach(async () => {
  child?.kill("SIGKILL");
  await child?.exited;
  child = undefined;
  await fake.stop();
  dirs.cleanup();
});

/** Resolves once stderr shows a JSON log line with this message; rejects if the process ends first. */
async function logLine(proc: ReturnType<typeof Bun.spawn>, msg: string): Promise<void> {
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`bunlet ended before logging ${JSON.stringify(msg)}:\n${buffered}`);
    buffered += decoder.decode(value, { stream: true });
    if (buffered.split("\n").some((l) => l.includes(`"msg":${JSON.stringify(msg)}`))) {
      reader.releaseLock();
      return;
    }
  }
}

const count = (method: string) => fake.callNames().filter((n) => n === method).length;

test("SIGTERM ends bunlet within 2 s while its CRI calls hang", async () => {
  child = Bun.spawn(
    [
      BUN,
      MAIN,
      `--container-runtime-endpoint=${fake.endpoint}`,
      `--root-dir=${join(dirs.root, "state")}`,
      `--pod-logs-dir=${join(dirs.root, "logs", "pods")}`,
      `--container-logs-dir=${join(dirs.root, "logs", "containers")}`,
      `--pod-manifest-path=${dirs.manifests}`,
      "--hostname-override=node1",
      "--read-only-port=0",
      "--healthz-port=0",
      // Relisting every second and housekeeping every 2 s keep list calls in flight.
      "--feature-gates=EventedPLEG=false",
      "--logging-format=json",
    ],
    { stdout: "ignore", stderr: "pipe" },
  );
  await logLine(child, "bunlet is running");

  // From now on every list and status call hangs: the PLEG's relist, housekeeping's getPods and
  // the runtime status poll all end up waiting on the runtime.
  for (const method of ["ListPodSandbox", "ListContainers", "Status"]) fake.delay(method, HANG_MS);
  const [sandboxes, statuses] = [count("ListPodSandbox"), count("Status")];
  await Promise.all([fake.whenCalled("ListPodSandbox", sandboxes + 2), fake.whenCalled("Status", statuses + 1)]);

  const sent = performance.now();
  child.kill("SIGTERM");
  const code = await child.exited;
  const tookMs = performance.now() - sent;
  expect(code).toBe(0);
  expect(tookMs).toBeLessThan(2_000);
}, 30_000);
