import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { compressLog, rotatedFilesOf } from "../../../src/logrotation/files.ts";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "bunlet-logs-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("compressLog", () => {
  test("writes <log>.gz and removes the original", async () => {
    const log = join(dir, "0.log.20261124-010203");
    writeFileSync(log, "line 1\nline 2\n");
    await compressLog(log);
    expect(readdirSync(dir)).toEqual(["0.log.20261124-010203.gz"]);
    expect(gunzipSync(readFileSync(`${log}.gz`)).toString()).toBe("line 1\nline 2\n");
  });

  test("a failed compression leaves no file behind (kubernetes#102553)", async () => {
    // A directory where the rotated log should be: reading it fails after the temporary file was created.
    const log = join(dir, "0.log.20261124-010203");
    mkdirSync(log);
    await expect(compressLog(log)).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(["0.log.20261124-010203"]);
  });
});

test("rotatedFilesOf lists <log>.* only", async () => {
  for (const n of ["0.log", "0.log.1", "0.log.2.gz", "1.log", "1.log.1"]) writeFileSync(join(dir, n), "");
  expect((await rotatedFilesOf(join(dir, "0.log"))).sort()).toEqual([join(dir, "0.log.1"), join(dir, "0.log.2.gz")]);
  expect(await rotatedFilesOf(join(dir, "gone", "0.log"))).toEqual([]);
});
