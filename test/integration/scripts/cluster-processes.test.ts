// scripts/lib/cluster-processes.sh, the way scripts/cluster.sh starts a component and waits for it.
// A component's log is opened by the forked shell before it execs the command; making that log a
// FIFO holds the child there, in the window a busy machine stretches, until the test reads it.
import { afterAll, expect, test } from "bun:test";
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../harness/images.ts";

const dir = mkdtempSync(join(tmpdir(), "cluster-processes-"));
afterAll(() => {
  // A failed test leaves its component running: its process group, if it still names the dir.
  for (const name of ["a", "b"]) {
    try {
      const pid = Number.parseInt(readFileSync(join(dir, name, "run", "comp.pid"), "utf8"), 10);
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`${dir}/`)) process.kill(-pid, "SIGKILL");
    } catch {
      // not started, or gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A bash script file (not `bash -c`: the forked child's command line must not name DIR) that sources the library. */
function script(name: string, body: string): string {
  // Beside the cluster dirs, not in one: afterAll removes it with them.
  const file = join(dir, `${name}.sh`);
  writeFileSync(
    file,
    `set -euo pipefail
DIR="$1" RUN="$1/run" LOGS="$1/logs"
log() { echo "cluster.sh: $*" >&2; }
die() { log "$*"; exit 1; }
source ${JSON.stringify(join(REPO_ROOT, "scripts/lib/cluster-processes.sh"))}
${body}
`,
  );
  return file;
}

test("start returns once the component runs its command, so wait_for does not take a child still forking for an exited one", async () => {
  const cluster = join(dir, "a");
  mkdirSync(join(cluster, "run"), { recursive: true });
  mkdirSync(join(cluster, "logs"));
  const fifo = join(cluster, "logs", "comp.log");
  expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
  const file = script("start-wait", `start comp bash -c 'exec >/dev/null 2>&1; touch "$1/ready"; sleep 30; true' comp "$DIR/"
wait_for "comp ready" 10 comp test -e "$DIR/ready"
echo "ready: $(pid_of comp)"
kill -- "-$(pid_of comp)"`); // setsid: the component leads its process group
  const proc = Bun.spawn(["bash", file, cluster], { stdout: "pipe", stderr: "pipe" });
  // The child is held before its exec for longer than wait_for's first check takes.
  await Bun.sleep(500);
  // Non-blocking: the open succeeds with or without a writer, and lets the child's open through.
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  closeSync(reader);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  expect(stdout).toBe(`ready: ${readFileSync(join(cluster, "run", "comp.pid"), "utf8").trim()}\n`);
});

test("wait_for still stops at once when the component exits before it is ready", async () => {
  const cluster = join(dir, "b");
  mkdirSync(join(cluster, "run"), { recursive: true });
  mkdirSync(join(cluster, "logs"));
  const file = script("start-exit", `start comp bash -c 'echo "no config at $1" >&2; exit 3' comp "$DIR/config"
wait_for "comp ready" 10 comp test -e "$DIR/ready"`);
  const started = Date.now();
  const proc = Bun.spawn(["bash", file, cluster], { stdout: "pipe", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(1);
  expect(stderr).toContain(`cluster.sh: comp exited while waiting for comp ready; the end of ${cluster}/logs/comp.log:\nno config at ${cluster}/config`);
  expect(Date.now() - started).toBeLessThan(5_000);
});
