// hostPath SetUp on real files: stat tells a directory, a file, a unix socket and /dev/null apart,
// a failed check creates nothing, and the *OrCreate types create what is missing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setUpHostPath } from "../../../src/volumes/hostpath.ts";

describe("setUpHostPath on real files", () => {
  let dir = "";
  let server: Server;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "bunlet-hostpath-"));
    mkdirSync(join(dir, "d"));
    writeFileSync(join(dir, "f"), "x");
    server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, "s.sock"), resolve));
  });
  afterAll(() => {
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("each type is told apart by stat", () => {
    setUpHostPath(join(dir, "d"), "Directory");
    setUpHostPath(join(dir, "f"), "File");
    setUpHostPath(join(dir, "s.sock"), "Socket");
    setUpHostPath("/dev/null", "CharDevice");
    expect(() => setUpHostPath("/dev/null", "File")).toThrow("/dev/null is not a file, it's a CharDevice");
  });

  test("a failed File check creates nothing; FileOrCreate and DirectoryOrCreate create what is missing", () => {
    const missing = join(dir, "missing");
    expect(() => setUpHostPath(missing, "File")).toThrow(`hostPath type check failed: ${missing} is not a file`);
    expect(existsSync(missing)).toBe(false);
    setUpHostPath(join(dir, "new-file"), "FileOrCreate");
    expect(statSync(join(dir, "new-file")).isFile()).toBe(true);
    expect(statSync(join(dir, "new-file")).mode & 0o777).toBe(0o644 & ~process.umask());
    setUpHostPath(join(dir, "new", "dir"), "DirectoryOrCreate");
    expect(statSync(join(dir, "new", "dir")).isDirectory()).toBe(true);
  });
});
