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

/** Claims a /24 with an exclusive lock file (holding our pid), so parallel test processes never share one. */
export function allocateTestNetwork(): TestNetwork {
  mkdirSync(LOCK_DIR, { recursive: true });
  const tmp = join(LOCK_DIR, `.${process.pid}.${randomBytes(4).toString("hex")}`);
  writeFileSync(tmp, `${process.pid}\n`);
  try {
    const start = randomInt(256);
    for (let i = 0; i < 256; i++) {
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
  throw new Error(`no free /24 in 10.89.0.0/16: all 256 lock files in ${LOCK_DIR} belong to live processes`);
}
