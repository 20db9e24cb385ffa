// Shared pieces of the pod-source tests: temp directories, manifests, and bounded waits for
// things real inotify or a real HTTP server make happen (never a fixed sleep).
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../../../src/api/index.ts";
import type { FakeClock } from "../../../src/lib/testing.ts";
import { waitFor as sharedWaitFor } from "../../harness/wait.ts";
import { makePod } from "../../fixtures/pods.ts";

export const nodeName = "node-a";

export function tempDir(prefix = "bunlet-podconfig-"): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * A small valid static pod manifest. It has no namespace, as a hand-written manifest often has not:
 * the file source defaults it to "default" (JSON drops the undefined value).
 */
export function podManifest(name: string, opts: { image?: string; command?: string[]; uid?: string } = {}): string {
  return JSON.stringify(
    makePod({
      name,
      metadata: { namespace: undefined, ...(opts.uid ? { uid: opts.uid } : {}) },
      container: { name: "main", image: opts.image ?? "docker.io/library/busybox:1.36", command: opts.command ?? ["sleep", "3600"] },
    }),
  );
}

/** Writes through a dot-file and a rename, as editors and config tools do. */
export function writeAtomically(path: string, data: string): void {
  const dir = path.slice(0, path.lastIndexOf("/"));
  const tmp = join(dir, `.${path.slice(dir.length + 1)}.tmp`);
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/** The shared wait, polling every 5 ms for at most 3 s (the sources answer within milliseconds). */
export function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 3_000): Promise<T> {
  return sharedWaitFor(what, check, { timeoutMs, intervalMs: 5 });
}

/**
 * Moves a FakeClock on by `stepMs` at a time until check() returns something: a new bad manifest
 * is reported only after it stays unchanged for the settle time, and the relist that noticed it
 * runs on real inotify, so the test cannot know the exact moment to advance.
 */
export function advanceUntil<T>(clock: FakeClock, what: string, check: () => T | undefined, stepMs = 1_000, timeoutMs = 3_000): Promise<T> {
  return sharedWaitFor(
    what,
    async () => {
      const got = check();
      if (got !== undefined) return got;
      await clock.advance(stepMs);
      return undefined;
    },
    { timeoutMs, intervalMs: 5 },
  );
}

/**
 * How many inotify watches this process holds on `path`, from the kernel's own table
 * (/proc/self/fdinfo of every inotify descriptor): 0 proves a watcher was really closed.
 */
export function inotifyWatchesOn(path: string): number {
  const ino = `ino:${statSync(path).ino.toString(16)} `;
  let count = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed while we looked (the readdir's own descriptor, for one)
    }
    if (target !== "anon_inode:inotify") continue;
    for (const line of readFileSync(`/proc/self/fdinfo/${fd}`, "utf8").split("\n")) {
      if (line.startsWith("inotify ") && line.includes(ino)) count++;
    }
  }
  return count;
}

/** Names of the pods in a snapshot ("web-node-a", ...). */
export function names(pods: Pod[]): string[] {
  return pods.map((p) => p.metadata.name ?? "");
}

/** Records snapshots and lets a test wait for the next one that matches. */
export class SnapshotRecorder {
  readonly snapshots: Pod[][] = [];
  #seen = 0;

  readonly onSnapshot = async (pods: Pod[]): Promise<void> => {
    this.snapshots.push(pods);
  };

  /** The first snapshot after the previous match that satisfies want (bounded wait). */
  async next(what: string, want: (pods: Pod[]) => boolean = () => true): Promise<Pod[]> {
    const found = await waitFor(what, () => {
      for (let i = this.#seen; i < this.snapshots.length; i++) {
        if (want(this.snapshots[i])) {
          this.#seen = i + 1;
          return this.snapshots[i];
        }
      }
      return undefined;
    }).catch((err: Error) => {
      throw new Error(`${err.message}; snapshots so far: ${JSON.stringify(this.snapshots.map(names))}`);
    });
    return found;
  }

  /** Snapshots that arrived after the last match. */
  get unread(): Pod[][] {
    return this.snapshots.slice(this.#seen);
  }
}

export const withNames =
  (...expected: string[]) =>
  (pods: Pod[]): boolean =>
    JSON.stringify(names(pods)) === JSON.stringify(expected);
