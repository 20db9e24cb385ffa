import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlive, reapDeadOwners, writeOwner } from "../../harness/reap.ts";

const root = mkdtempSync(join(tmpdir(), "reap-owners-"));
const spawned: Bun.Subprocess[] = [];
/** A bash that waits on its stdin (a builtin: no child left behind when it is killed), `args` in its command line. */
const sleeper = (...args: string[]) => {
  const p = Bun.spawn(["/bin/bash", "-c", "read -r -t 600 _ || true", "sleeper", ...args], { stdin: "pipe", stdout: "ignore", stderr: "ignore" });
  spawned.push(p);
  return p;
};

afterAll(() => {
  for (const p of spawned) p.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

/** A pid that belonged to a process which has exited. */
async function deadPid(): Promise<number> {
  const p = Bun.spawn(["true"]);
  await p.exited;
  return p.pid;
}

test("a dead owner's recorded child is killed only while it still names the dir; a pid reused by another process is spared", async () => {
  const owner = await deadPid();
  const abandoned = join(root, "bunlet-abandoned");
  const reused = join(root, "bunlet-reused");
  mkdirSync(abandoned);
  mkdirSync(reused);
  const child = sleeper(join(abandoned, "config.yml"));
  // The record's pid now belongs to a process that has nothing to do with the dir.
  const stranger = sleeper("--unrelated");
  writeOwner(abandoned, { ownerPid: owner, childPid: child.pid });
  writeOwner(reused, { ownerPid: owner, childPid: stranger.pid });

  reapDeadOwners(root);

  await child.exited;
  expect(child.signalCode).toBe("SIGKILL");
  // An absence has no event to wait for: the stranger must still run well after the child's end.
  expect(await Promise.race([stranger.exited.then(() => `exited (${stranger.signalCode})`), Bun.sleep(300).then(() => "running")])).toBe("running");
  expect(isAlive(stranger.pid)).toBe(true);
  expect(existsSync(reused)).toBe(false);
});

test("a dir without an owner record (just made) and a live owner's dir are left alone", () => {
  const here = join(root, "second");
  const fresh = join(here, "bunlet-fresh");
  const live = join(here, "bunlet-live");
  mkdirSync(fresh, { recursive: true });
  mkdirSync(live);
  writeOwner(live, { ownerPid: process.pid });
  expect(reapDeadOwners(here)).toEqual([]);
  expect(existsSync(fresh) && existsSync(live)).toBe(true);
});
