// --max-open-files as the kubelet acts on it: bunlet's own process runs with RLIMIT_NOFILE set
// to the value, soft and hard (read from /proc/<pid>/limits).
import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import { waitFor } from "../../harness/wait.ts";
import { makeDirs, type TestDirs } from "../agent/helpers.ts";

const BUN = join(import.meta.dir, "../../../node_modules/.bin/bun");
const MAIN = join(import.meta.dir, "../../../src/main.ts");

let child: ReturnType<typeof Bun.spawn> | undefined;
let fake: FakeCri | undefined;
let dirs: TestDirs | undefined;
afterEach(async () => {
  child?.kill("SIGKILL");
  await child?.exited;
  await fake?.stop();
  dirs?.cleanup();
});

function openFilesLimit(pid: number): string {
  const line = readFileSync(`/proc/${pid}/limits`, "utf8").split("\n").find((l) => l.startsWith("Max open files"));
  return (line ?? "").replace(/\s+/g, " ").trim();
}

test("--max-open-files=4321 sets the process's open-files limit, soft and hard", async () => {
  fake = await startFakeCri();
  dirs = makeDirs();
  // Not the limit the test runner has, so the change is bunlet's.
  expect(openFilesLimit(process.pid)).not.toContain(" 4321 ");
  child = Bun.spawn(
    [BUN, MAIN, `--container-runtime-endpoint=${fake.endpoint}`, `--root-dir=${join(dirs.root, "state")}`, `--pod-logs-dir=${join(dirs.root, "logs")}`,
      `--container-logs-dir=${join(dirs.root, "containers")}`, "--hostname-override=node1", "--read-only-port=0", "--healthz-port=0", "--enable-server=false",
      "--max-open-files=4321"],
    { stdout: "ignore", stderr: "ignore" },
  );
  const pid = child.pid;
  await waitFor("the limit set", () => openFilesLimit(pid).includes("4321"), { timeoutMs: 10_000 });
  expect(openFilesLimit(pid)).toBe("Max open files 4321 4321 files");
});
