/**
 * fsGroup applied to a volume (pkg/volume/volume_linux.go SetVolumeOwnership): every file and
 * directory gets the fsGroup as its group and group read (and write, for a writable volume)
 * permission; directories also get the setgid bit and group search, so files created later keep
 * the group. With fsGroupChangePolicy OnRootMismatch nothing is walked when the volume's root
 * already has the group and the bits. The projected token's owner (FsUserFrom): the runAsUser
 * all the pod's containers share, if they share one.
 */
import { chmodSync, lchownSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "../api/index.ts";

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;

function changeFilePermission(path: string, fsGroup: number, readOnly: boolean): void {
  lchownSync(path, -1, fsGroup);
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  let mask = readOnly ? RO_MASK : RW_MASK;
  if (st.isDirectory()) mask |= SETGID | EXEC_MASK;
  chmodSync(path, (st.mode & 0o7777) | mask);
}

/** skipPermissionChange: the root already has the group and the bits (OnRootMismatch). */
function rootMatches(dir: string, fsGroup: number, readOnly: boolean): boolean {
  const st = lstatSync(dir);
  const mask = (readOnly ? RO_MASK : RW_MASK) | SETGID | EXEC_MASK;
  return st.gid === fsGroup && (st.mode & mask) === mask;
}

function walk(dir: string, visit: (path: string) => void): void {
  visit(dir);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) walk(path, visit);
    else visit(path);
  }
}

export function setVolumeOwnership(dir: string, fsGroup: number | undefined, readOnly: boolean, policy?: string): void {
  if (fsGroup === undefined) return;
  if (policy === "OnRootMismatch" && rootMatches(dir, fsGroup, readOnly)) return;
  walk(dir, (path) => changeFilePermission(path, fsGroup, readOnly));
}

/** FsUserFrom: the runAsUser every init and regular container runs as, when they agree. */
export function fsUserFrom(pod: Pod): number | undefined {
  const users = new Set<number | undefined>();
  for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    users.add(c.securityContext?.runAsUser ?? pod.spec.securityContext?.runAsUser);
  }
  if (users.size !== 1) return undefined;
  return [...users][0];
}
