/**
 * Static pods with the same full name (name_namespace) start one at a time, in the order
 * updatePod first saw them (pod_workers.go allowStaticPodStart). A static pod's UID changes with
 * every edit of its manifest, so without this gate the old and the new version of a pod would
 * run side by side, both binding the same host ports and paths.
 */
export class StaticPodStartGate {
  /** The UID that currently holds each full name. */
  #started = new Map<string, string>();
  /** UIDs waiting for a full name, in arrival order. */
  #waiting = new Map<string, string[]>();

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
    const holder = this.#started.get(fullName);
    if (holder !== undefined) return holder === uid;
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

  /** Frees fullName if uid holds it (the pod finished or was forgotten). */
  release(fullName: string, uid: string): void {
    if (this.#started.get(fullName) === uid) this.#started.delete(fullName);
  }

  /** The UID holding fullName, if any. */
  holder(fullName: string): string | undefined {
    return this.#started.get(fullName);
  }

  /** The waiting line of fullName (tests). */
  waiting(fullName: string): readonly string[] {
    return this.#waiting.get(fullName) ?? [];
  }
}
