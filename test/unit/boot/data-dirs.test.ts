// The root directory as the kubelet's setupDataDirs makes it: 0750, and an existing one kept.
import { afterEach, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setupRootDir } from "../../../src/boot/data-dirs.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "bunlet-root-"));
  dirs.push(d);
  return d;
};

test("a missing root directory is made, with its parents, mode 0750", () => {
  const root = join(temp(), "var", "lib", "bunlet");
  setupRootDir(root);
  expect(statSync(root).mode & 0o777).toBe(0o750);
});

test("an existing root directory is kept as it is", () => {
  const root = join(temp(), "bunlet");
  mkdirSync(root);
  chmodSync(root, 0o700);
  setupRootDir(root);
  expect(statSync(root).mode & 0o777).toBe(0o700);
});
