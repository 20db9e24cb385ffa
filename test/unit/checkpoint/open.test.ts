// The checkpoint at start: kept and used with --offline-start, removed (Secrets and tokens with
// it) with --offline-start=false.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openCheckpoint } from "../../../src/checkpoint/open.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function leftover(): string {
  const root = mkdtempSync(join(tmpdir(), "bunlet-checkpoint-open-"));
  dirs.push(root);
  const dir = join(root, "checkpoint");
  mkdirSync(join(dir, "secrets"), { recursive: true });
  writeFileSync(join(dir, "secrets", "secrets.json"), '{"kind":"Secrets","items":[]}');
  return dir;
}

test("--offline-start=false removes the checkpoint an earlier run left, and opens none", () => {
  const dir = leftover();
  const log = createMemoryLogger();
  expect(openCheckpoint({ dir, offlineStart: false, clock: new FakeClock(), log })).toBeUndefined();
  expect(existsSync(dir)).toBe(false);
  expect(log.lines).toEqual([{ level: "info", msg: "--offline-start=false: removing the checkpoint of an earlier run", dir }]);
});

test("--offline-start=false with no checkpoint on disk touches nothing and logs nothing", () => {
  const dir = join(leftover(), "..", "elsewhere");
  const log = createMemoryLogger();
  expect(openCheckpoint({ dir, offlineStart: false, clock: new FakeClock(), log })).toBeUndefined();
  expect(existsSync(dir)).toBe(false);
  expect(log.lines).toEqual([]);
});

test("--offline-start keeps the checkpoint and opens it, private to bunlet", () => {
  const dir = leftover();
  const checkpoint = openCheckpoint({ dir, offlineStart: true, clock: new FakeClock(), log: createMemoryLogger() });
  expect(checkpoint).toBeDefined();
  expect(existsSync(join(dir, "secrets", "secrets.json"))).toBe(true);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
});
