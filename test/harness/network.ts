import { randomBytes, randomInt } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "./reap.ts";

const LOCK_DIR = "/tmp/bunlet-test-subnets";

export interface TestNetwork {
  /** `bl` + 8 hex characters: unique per instance, short enough for IFNAMSIZ. */
  bridgeName: string;
  /** A /24 inside 10.89.0.0/16 that no other live test instance holds. */
  podSubnet: string;
  /** The lock file that reserves the subnet (holds our pid). */
  lockFile: string;
  release(): void;
}

/** link(2) is atomic and fails if the lock exists, so the lock never exists without its pid. */
function tryLock(lock: string, tmp: string): boolean {
  try {
    linkSync(tmp, lock);
    return true;
  } catch {
    return false;
  }
}

/**
 * The third octets of the 10.89.N.0/24 subnets an interface of this host already has an address
 * in: a bridge a crashed test left behind keeps its route, and a new bridge on the same subnet
 * would get a second route the kernel does not use, so its pods could not be reached.
 */
function subnetsInUse(): Set<number> {
  const out = Bun.spawnSync(["ip", "-o", "-4", "addr", "show"], { stdout: "pipe", stderr: "ignore" }).stdout.toString();
  return new Set([...out.matchAll(/inet 10\.89\.(\d+)\.\d+\//g)].map((m) => Number(m[1])));
}

/**
 * Claims a /24 with an exclusive lock file (holding our pid), so parallel test processes never
 * share one, and never one an interface of the host (a leftover bridge) still holds.
 */
export function allocateTestNetwork(): TestNetwork {
  mkdirSync(LOCK_DIR, { recursive: true });
  const inUse = subnetsInUse();
  const tmp = join(LOCK_DIR, `.${process.pid}.${randomBytes(4).toString("hex")}`);
  writeFileSync(tmp, `${process.pid}\n`);
  try {
    const start = randomInt(256);
    for (let i = 0; i < 256; i++) {
      if (inUse.has((start + i) % 256)) continue;
      const lock = join(LOCK_DIR, `10.89.${(start + i) % 256}.lock`);
      if (!tryLock(lock, tmp)) {
        let owner = Number.NaN;
        try {
          owner = Number.parseInt(readFileSync(lock, "utf8").trim(), 10);
        } catch {
          // released meanwhile
        }
        if (Number.isInteger(owner) && isAlive(owner)) continue;
        rmSync(lock, { force: true }); // left by a dead test process
        if (!tryLock(lock, tmp)) continue;
      }
      return {
        bridgeName: `bl${randomBytes(4).toString("hex")}`,
        podSubnet: `10.89.${(start + i) % 256}.0/24`,
        lockFile: lock,
        release: () => rmSync(lock, { force: true }),
      };
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  throw new Error(`no free /24 in 10.89.0.0/16: each is locked by a live process in ${LOCK_DIR} or held by an interface of the host (${inUse.size} are)`);
}
