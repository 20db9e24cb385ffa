/**
 * The user namespace manager (the kubelet's UsernsManager): what goes into a pod's
 * NamespaceOption.userns_options. A pod without `hostUsers: false` runs in the node's user
 * namespace (mode NODE, as the kubelet sends with the feature on); one with it gets its own range
 * (mode POD, container IDs [0, idsPerPod) on host IDs [hostId, hostId + idsPerPod)), kept in the
 * pod directory's `userns` file so it survives restarts, and freed once the pod is terminated and
 * its volumes are gone. A runtime handler that cannot make user namespaces refuses the pod with
 * the kubelet's error, so such a pod never runs with the node's identity mapping.
 */
import type { Pod } from "../api/index.ts";
import type { Logger } from "../lib/index.ts";
import type { RangeAllocator, PodRange } from "./allocator.ts";
import { parseMappings, readMappingsFile, removeMappingsFile, writeMappingsFile } from "./mappings-file.ts";

export interface IdMapping {
  hostId: number;
  containerId: number;
  length: number;
}

/** NamespaceOption.userns_options as the runtime gets it. */
export type PodUserNamespace = { mode: "NODE" } | { mode: "POD"; uids: IdMapping[]; gids: IdMapping[] };

/** A runtime handler from the CRI Status (RuntimeHandler with its features). */
export interface RuntimeHandlerInfo {
  name: string;
  userNamespaces: boolean;
}

/** Refused: the pod cannot get a user namespace (the handler cannot make one, or no range is left). */
export class UserNamespaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserNamespaceError";
  }
}

/**
 * HandlerSupportsUserNamespaces: no handlers at all (a runtime older than the RuntimeHandlers
 * field: containerd 1.x) means no; a handler the runtime does not list is an error.
 */
export function handlerSupportsUserNamespaces(handlers: readonly RuntimeHandlerInfo[], name: string): boolean {
  if (handlers.length === 0) return false;
  const handler = handlers.find((h) => h.name === name);
  if (!handler) throw new Error(`the handler "${name}" is not known`);
  return handler.userNamespaces;
}

export interface UserNamespaceManagerDeps {
  allocator: RangeAllocator;
  /** `<root-dir>/pods/<uid>`. */
  podDir(uid: string): string;
  /** The runtime's handlers from its last Status answer. */
  runtimeHandlers(): readonly RuntimeHandlerInfo[];
  log: Logger;
}

export interface UserNamespaceManager {
  /** GetOrCreateUserNamespaceMappings; throws UserNamespaceError (or the file's error) when the pod cannot have one. */
  getOrCreateUserNamespaceMappings(pod: Pod, runtimeHandler: string): PodUserNamespace;
  /** Release: frees the pod's range and removes its file. */
  release(uid: string): void;
  /**
   * CleanupOrphanedPodUsernsAllocations: frees the ranges of pods nobody knows any more (not in
   * `known`) whose pod directory is gone from disk (`onDisk`). Stricter than the kubelet, which
   * also frees an unknown pod's range while its directory (with files written by that range)
   * still exists: bunlet waits until housekeeping removed the directory.
   */
  cleanupOrphaned(known: ReadonlySet<string>, onDisk: ReadonlySet<string>): void;
  /** Pods holding a range (for tests and /configz-style reports). */
  allocated(): ReadonlyMap<string, PodRange>;
}

function podMode(range: PodRange): PodUserNamespace {
  const mapping = { hostId: range.hostId, containerId: 0, length: range.length };
  return { mode: "POD", uids: [mapping], gids: [{ ...mapping }] };
}

export function createUserNamespaceManager(deps: UserNamespaceManagerDeps): UserNamespaceManager {
  const { allocator, log } = deps;

  /** The pod's range from its file, recorded (a restart, or a second sync of the pod). */
  function fromFile(uid: string, content: string): PodRange {
    const range = parseMappings(content);
    allocator.record(uid, range.hostId, range.length);
    return range;
  }

  /** createUserNs: a new range, written to the pod's file; released again if the write fails. */
  function create(uid: string): PodRange {
    const held = allocator.get(uid);
    // A range still in memory whose file went missing is written again rather than leaked.
    const range = held !== undefined ? { hostId: held, length: allocator.idsPerPod } : allocator.allocate(uid);
    try {
      writeMappingsFile(deps.podDir(uid), range);
    } catch (err) {
      allocator.release(uid);
      throw err;
    }
    log.debug("New pod user namespace allocation", { podUID: uid, hostId: range.hostId, length: range.length }, 5);
    return range;
  }

  return {
    getOrCreateUserNamespaceMappings(pod, runtimeHandler) {
      if (pod.spec.hostUsers !== false) return { mode: "NODE" };
      let supported: boolean;
      let cause: Error | undefined;
      try {
        supported = handlerSupportsUserNamespaces(deps.runtimeHandlers(), runtimeHandler);
      } catch (err) {
        supported = false;
        cause = err as Error;
      }
      if (!supported) {
        const msg =
          runtimeHandler === ""
            ? "can't set `spec.hostUsers: false`, runtime does not support user namespaces"
            : `can't set \`spec.hostUsers: false\`, RuntimeClass handler "${runtimeHandler}" does not support user namespaces`;
        throw new UserNamespaceError(cause ? `${msg}: ${cause.message}` : msg);
      }
      const uid = pod.metadata.uid ?? "";
      const content = readMappingsFile(deps.podDir(uid));
      let range: PodRange;
      if (content !== undefined && content !== "") {
        try {
          range = fromFile(uid, content);
        } catch (err) {
          throw new UserNamespaceError(`user namespace: ${(err as Error).message}`);
        }
      } else {
        try {
          range = create(uid);
        } catch (err) {
          throw new UserNamespaceError(`create user namespace: ${(err as Error).message}`);
        }
      }
      return podMode(range);
    },

    release(uid) {
      if (!allocator.release(uid)) {
        log.debug("Pod user namespace allocation not present", { podUID: uid }, 5);
        return;
      }
      log.debug("Releasing pod user namespace allocation", { podUID: uid }, 5);
      try {
        removeMappingsFile(deps.podDir(uid));
      } catch (err) {
        log.warn("Could not remove the pod's user namespace file; the pod directory's removal takes it", { podUID: uid, err });
      }
    },

    cleanupOrphaned(known, onDisk) {
      for (const uid of allocator.uids()) {
        if (known.has(uid) || onDisk.has(uid)) continue;
        log.debug("Clean up orphaned pod user namespace allocation", { podUID: uid }, 5);
        this.release(uid);
      }
    },

    allocated() {
      return new Map(allocator.uids().map((uid) => [uid, { hostId: allocator.get(uid)!, length: allocator.idsPerPod }]));
    },
  };
}

/**
 * MakeUserNsManager's start: the ranges of pods already on disk are taken again, so a restart
 * never hands a running pod's range to another. A file the kubelet could not read stops it from
 * starting, and bunlet too (its error names the pod).
 */
export function recordPodsFromDisk(allocator: RangeAllocator, podDir: (uid: string) => string, uids: readonly string[]): void {
  for (const uid of uids) {
    const content = readMappingsFile(podDir(uid));
    if (content === undefined || content === "") continue;
    try {
      const range = parseMappings(content);
      allocator.record(uid, range.hostId, range.length);
    } catch (err) {
      throw new Error(`record pod mappings for existing pod "${uid}": ${(err as Error).message}`);
    }
  }
}
