// PrepareSafeSubpath and CleanSubPaths with real bind mounts (root): the runtime gets a target
// under <pod dir>/volume-subpaths that holds exactly the subPath's inode; a restarted container
// reuses it only while it is the same file; a planted symlink gets nothing mounted; cleaning
// unmounts everything and removes only what bunlet made.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mountPointsUnder, silentLogger } from "../../../src/lib/index.ts";
import { createSubpather } from "../../../src/subpath/index.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "bunlet-subpath-bind-")));
const subpather = createSubpather({ log: silentLogger });
const podDir = join(dir, "pod");
const volume = join(podDir, "volumes", "kubernetes.io~empty-dir", "data");
const host = join(dir, "host");

const sp = (index: number, subPath: string) => ({
  volumeMountIndex: index,
  path: join(volume, subPath),
  volumeName: "data",
  volumePath: volume,
  podDir,
  containerName: "app",
});
const target = (index: number) => join(podDir, "volume-subpaths", "data", "app", String(index));

beforeEach(async () => {
  await subpather.cleanSubPaths(podDir);
  rmSync(dir + "/pod", { recursive: true, force: true });
  rmSync(host, { recursive: true, force: true });
  mkdirSync(join(volume, "dir"), { recursive: true });
  writeFileSync(join(volume, "dir", "inner"), "in-dir");
  writeFileSync(join(volume, "file"), "a-file");
  mkdirSync(host);
  writeFileSync(join(host, "secret"), "host-secret");
});
afterAll(async () => {
  await subpather.cleanSubPaths(podDir);
  for (const m of mountPointsUnder(dir)) Bun.spawnSync(["umount", "-l", m]);
  rmSync(dir, { recursive: true, force: true });
});

describe("prepareSafeSubpath with real mounts", () => {
  test("a directory and a file are bind-mounted under volume-subpaths and show the volume's data", async () => {
    expect(await subpather.prepareSafeSubpath(sp(0, "dir"))).toBe(target(0));
    expect(await subpather.prepareSafeSubpath(sp(1, "file"))).toBe(target(1));
    expect(mountPointsUnder(join(podDir, "volume-subpaths")).sort()).toEqual([target(0), target(1)]);
    expect(readFileSync(join(target(0), "inner"), "utf8")).toBe("in-dir");
    expect(readFileSync(target(1), "utf8")).toBe("a-file");
    expect(statSync(target(0)).ino).toBe(statSync(join(volume, "dir")).ino);
  });

  test("a restarted container reuses the mount while it is the same file, and gets a new one when it is not", async () => {
    await subpather.prepareSafeSubpath(sp(0, "dir"));
    await subpather.prepareSafeSubpath(sp(0, "dir"));
    expect(mountPointsUnder(target(0))).toEqual([target(0)]);
    renameSync(join(volume, "dir"), join(volume, "dir-old"));
    mkdirSync(join(volume, "dir"));
    writeFileSync(join(volume, "dir", "inner"), "replaced");
    await subpather.prepareSafeSubpath(sp(0, "dir"));
    expect(mountPointsUnder(target(0))).toEqual([target(0)]);
    expect(readFileSync(join(target(0), "inner"), "utf8")).toBe("replaced");
  });

  test("a symlink the container planted to a host directory gets nothing mounted", async () => {
    symlinkSync(host, join(volume, "escape"));
    await expect(subpather.prepareSafeSubpath(sp(2, "escape"))).rejects.toThrow(`subpath "${host}" not within volume path "${volume}"`);
    symlinkSync(join(host, "secret"), join(volume, "escape-file"));
    await expect(subpather.prepareSafeSubpath(sp(3, "escape-file"))).rejects.toThrow("not within volume path");
    expect(mountPointsUnder(podDir)).toEqual([]);
    expect(existsSync(target(2))).toBe(false);
  });

  test("a symlink that stays inside the volume is resolved and mounted, as the kubelet does", async () => {
    symlinkSync("dir", join(volume, "alias"));
    expect(await subpather.prepareSafeSubpath(sp(4, "alias"))).toBe(target(4));
    expect(readFileSync(join(target(4), "inner"), "utf8")).toBe("in-dir");
  });
});

describe("cleanSubPaths with real mounts", () => {
  test("every mount is gone, the targets are removed, the volume's data stays", async () => {
    await subpather.prepareSafeSubpath(sp(0, "dir"));
    await subpather.prepareSafeSubpath(sp(1, "file"));
    await subpather.cleanSubPaths(podDir);
    expect(mountPointsUnder(podDir)).toEqual([]);
    expect(existsSync(join(podDir, "volume-subpaths"))).toBe(false);
    expect(readFileSync(join(volume, "dir", "inner"), "utf8")).toBe("in-dir");
    expect(readFileSync(join(volume, "file"), "utf8")).toBe("a-file");
  });

  test("a symlink found in volume-subpaths is removed, never followed", async () => {
    mkdirSync(join(podDir, "volume-subpaths"), { recursive: true });
    symlinkSync(host, join(podDir, "volume-subpaths", "data"));
    mkdirSync(join(podDir, "volume-subpaths", "other", "app"), { recursive: true });
    symlinkSync(host, join(podDir, "volume-subpaths", "other", "app", "0"));
    await subpather.cleanSubPaths(podDir);
    expect(existsSync(join(podDir, "volume-subpaths"))).toBe(false);
    expect(readFileSync(join(host, "secret"), "utf8")).toBe("host-secret");
    expect(lstatSync(host).isDirectory()).toBe(true);
  });
});
