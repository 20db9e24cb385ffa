import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mountPointsUnder, parseMountPoints, runMountCommand } from "../../../src/lib/mount.ts";

const dir = mkdtempSync(join(tmpdir(), "bunlet-mount-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mountinfo = [
  "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
  "90 22 0:50 / /var/lib/bunlet/pods/u/volumes/kubernetes.io~secret/my\\040secret rw,relatime - tmpfs tmpfs rw,size=1024k",
  "91 22 0:51 / /var/lib/bunlet/pods/u/volume-subpaths/v/c/0 rw - ext4 /dev/sda1 rw",
  "92 91 0:52 / /var/lib/bunlet/pods/u/volume-subpaths/v/c/0/deeper rw - tmpfs tmpfs rw",
  "93 22 0:53 / /var/lib/bunlet/pods/u2 rw - tmpfs tmpfs rw",
  "",
].join("\n");

test("mount points come from mountinfo's fifth field, octal escapes decoded", () => {
  expect(parseMountPoints(mountinfo)).toEqual([
    "/",
    "/var/lib/bunlet/pods/u/volumes/kubernetes.io~secret/my secret",
    "/var/lib/bunlet/pods/u/volume-subpaths/v/c/0",
    "/var/lib/bunlet/pods/u/volume-subpaths/v/c/0/deeper",
    "/var/lib/bunlet/pods/u2",
  ]);
});

test("the mount points at or below a directory, longest first (a mount before the one it sits on); a sibling with the same prefix is not below it", () => {
  const path = join(dir, "mountinfo");
  writeFileSync(path, mountinfo);
  expect(mountPointsUnder("/var/lib/bunlet/pods/u", path)).toEqual([
    "/var/lib/bunlet/pods/u/volumes/kubernetes.io~secret/my secret",
    "/var/lib/bunlet/pods/u/volume-subpaths/v/c/0/deeper",
    "/var/lib/bunlet/pods/u/volume-subpaths/v/c/0",
  ]);
  expect(mountPointsUnder("/var/lib/bunlet/pods/u2", path)).toEqual(["/var/lib/bunlet/pods/u2"]);
});

test("a failed command is an error in the kubelet's words: command, arguments, output", async () => {
  const err = await runMountCommand(["sh", "-c", "echo no such device >&2; exit 32"]).catch((e: Error) => e);
  expect(err).toBeInstanceOf(Error);
  expect((err as Error).message).toBe("mount failed: exit status 32\nMounting command: sh\nMounting arguments: -c echo no such device >&2; exit 32\nOutput: no such device");
});
