/**
 * The pod's `userns` file (the kubelet's mappingsFile in the pod directory): the range a pod was
 * given, so it keeps it across restarts, and so the allocator knows at start-up which ranges are
 * taken. The kubelet's JSON exactly (a pod directory moved between the kubelet and bunlet keeps
 * its range), written atomically (a temp file renamed over it) and made durable (the file and the
 * directory fsynced), as the kubelet's file store does.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PodRange } from "./allocator.ts";

/** mappingsFile. */
const MAPPINGS_FILE = "userns";

interface IdMapping {
  hostId: number;
  containerId: number;
  length: number;
}

/** The file's content for a range: one UID and one identical GID mapping of container ID 0. */
export function encodeMappings(range: PodRange): string {
  const mapping = { hostId: range.hostId, containerId: 0, length: range.length };
  return JSON.stringify({ uidMappings: [mapping], gidMappings: [{ ...mapping }] });
}

function toMappings(x: unknown): IdMapping[] {
  if (x === null || x === undefined) return [];
  if (!Array.isArray(x)) throw new Error("invalid user namespace mappings file: mappings must be a list");
  return x.map((m) => {
    const o = (m ?? {}) as Record<string, unknown>;
    const num = (k: string) => {
      const v = o[k] ?? 0;
      if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 0xffff_ffff) {
        throw new Error(`invalid user namespace mappings file: ${k} must be a 32-bit unsigned integer, found ${JSON.stringify(v)}`);
      }
      return v;
    };
    return { hostId: num("hostId"), containerId: num("containerId"), length: num("length") };
  });
}

/** parseUserNsFileAndRecord's checks: what the kubelet wrote and can digest, else its error. */
export function parseMappings(content: string): PodRange {
  let parsed: { uidMappings?: unknown; gidMappings?: unknown };
  try {
    parsed = JSON.parse(content) ?? {};
  } catch (err) {
    throw new Error(`invalid user namespace mappings file: ${(err as Error).message}`);
  }
  const uids = toMappings(parsed.uidMappings);
  const gids = toMappings(parsed.gidMappings);
  if (uids.length !== 1) throw new Error("invalid user namespace configuration: no more than one mapping allowed.");
  if (uids.length !== gids.length) throw new Error("invalid user namespace configuration: GID and UID mappings should be identical.");
  const [u, g] = [uids[0]!, gids[0]!];
  if (u.hostId !== g.hostId || u.containerId !== g.containerId || u.length !== g.length) {
    throw new Error("invalid user namespace configuration: GID and UID mapping should be identical");
  }
  // Runtimes assume container root is mapped.
  if (u.containerId !== 0) throw new Error("invalid user namespace configuration: UID 0 must be mapped");
  return { hostId: u.hostId, length: u.length };
}

/** The file's content, or undefined when the pod has none (ErrKeyNotFound). */
export function readMappingsFile(podDir: string): string | undefined {
  try {
    return readFileSync(join(podDir, MAPPINGS_FILE), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

function fsyncPath(path: string, flags: string): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function writeMappingsFile(podDir: string, range: PodRange): void {
  const path = join(podDir, MAPPINGS_FILE);
  const tmp = `${path}.tmp`;
  mkdirSync(podDir, { recursive: true, mode: 0o750 });
  writeFileSync(tmp, encodeMappings(range), { mode: 0o644 });
  fsyncPath(tmp, "r");
  renameSync(tmp, path);
  fsyncPath(podDir, "r");
}

export function removeMappingsFile(podDir: string): void {
  rmSync(join(podDir, MAPPINGS_FILE), { force: true });
}
