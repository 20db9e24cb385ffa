/**
 * Static pods with the same full name (name_namespace) start one at a time, in the order
 * updatePod first saw them (pod_workers.go allowStaticPodStart). A static pod's UID changes with
 * every edit of its manifest, so without this gate the old and the new version of a pod would
 * run side by side, both binding the same host ports and paths.
 *
 * The runtime's pods count too: a pod found running under a full name (left by an earlier run of
 * bunlet, e.g. the old version of a manifest edited while bunlet was stopped) holds that name
 * until it is gone, so the new version waits for housekeeping to kill the old one.
 */
export class StaticPodStartGate {
  /** The UID that currently holds each full name. */
  #started = new Map<string, string>();
  /** UIDs waiting for a full name, in arrival order. */
  #waiting = new Map<string, string[]>();
  /** UIDs the runtime last reported running under each full name. */
  #running = new Map<string, Set<string>>();

  /** Puts uid in line for fullName (once, when its worker is created). */
  enqueue(fullName: string, uid: string): void {
    const line = this.#waiting.get(fullName) ?? [];
    line.push(uid);
    this.#waiting.set(fullName, line);
  }

  /**
   * True if uid may start now: nobody holds the name and uid is the first waiter that is still
   * alive (`isAlive` false for UIDs that were forgotten or asked to terminate meanwhile).
   */
  tryStart(fullName: string, uid: string, isAlive: (uid: string) => boolean): boolean {
    const running = this.#running.get(fullName) ?? new Set<string>();
    if ([...running].some((other) => other !== uid)) return false;
    const holder = this.#started.get(fullName);
    if (holder !== undefined) return holder === uid;
    if (running.has(uid)) {
      // Already running in the runtime (adopted): it goes before anyone waiting in line.
      this.#leaveLine(fullName, uid);
      this.#started.set(fullName, uid);
      return true;
    }
    let line = this.#waiting.get(fullName) ?? [];
    for (let i = 0; i < line.length; i++) {
      const waiter = line[i]!;
      if (!isAlive(waiter)) continue;
      if (waiter !== uid) {
        this.#waiting.set(fullName, line.slice(i));
        return false;
      }
      line = line.slice(i + 1);
      break;
    }
    if (line.length > 0) this.#waiting.set(fullName, line);
    else this.#waiting.delete(fullName);
    this.#started.set(fullName, uid);
    return true;
  }

  /** Frees fullName if uid holds it (the pod finished or was forgotten); uid no longer runs. */
  release(fullName: string, uid: string): void {
    if (this.#started.get(fullName) === uid) this.#started.delete(fullName);
    this.#forgetRunning(fullName, uid);
  }

  /**
   * Replaces what the runtime runs with `pods`; returns the full names some UID stopped running
   * under (their waiters may be able to start now).
   */
  observeRuntime(pods: readonly { fullName: string; uid: string }[]): string[] {
    const next = new Map<string, Set<string>>();
    for (const { fullName, uid } of pods) {
      const uids = next.get(fullName) ?? new Set<string>();
      uids.add(uid);
      next.set(fullName, uids);
    }
    const freed = [...this.#running].filter(([name, uids]) => [...uids].some((uid) => !next.get(name)?.has(uid))).map(([name]) => name);
    this.#running = next;
    return freed;
  }

  /** The UID holding fullName, if any. */
  holder(fullName: string): string | undefined {
    return this.#started.get(fullName);
  }

  #leaveLine(fullName: string, uid: string): void {
    const line = (this.#waiting.get(fullName) ?? []).filter((waiter) => waiter !== uid);
    if (line.length > 0) this.#waiting.set(fullName, line);
    else this.#waiting.delete(fullName);
  }

  #forgetRunning(fullName: string, uid: string): void {
    const uids = this.#running.get(fullName);
    if (uids === undefined) return;
    uids.delete(uid);
    if (uids.size === 0) this.#running.delete(fullName);
  }

  /** The waiting line of fullName (tests). */
  waiting(fullName: string): readonly string[] {
    return this.#waiting.get(fullName) ?? [];
  }
}
