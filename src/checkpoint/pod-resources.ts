/**
 * The kubelet's resource checkpoints (pkg/kubelet/allocation/state): per pod, the resources of
 * each container. Two are kept under `<root-dir>`, as the kubelet keeps `allocated_pods_state`
 * and `actuated_pods_state`: what the node allocated to the pod (admission, an accepted resize)
 * and what it actually gave the running containers (their cgroups). Both must survive a restart:
 * without them a restarted node would admit pods against the desired resources of a resize it
 * never accepted, and would not know which resize it still has to apply.
 *
 * One JSON document per file, written atomically, and only when its bytes change (a pod's
 * allocation changes at admission and at a resize, never at rest).
 */
import type { ResourceRequirements } from "../api/index.ts";
import { cloneJson, type Logger } from "../lib/index.ts";
import { Collection } from "./collection.ts";

/** The resources of one pod's containers, by container name. */
export interface PodResourceInfo {
  containers: Record<string, ResourceRequirements>;
}

interface Entry extends PodResourceInfo {
  uid: string;
}

export interface PodResourcesStore {
  get(uid: string): PodResourceInfo | undefined;
  /** Replaces the pod's entry (an admission, an accepted resize). */
  set(uid: string, info: PodResourceInfo): void;
  /** Sets one container's resources (a container started, or resized through the runtime). */
  setContainer(uid: string, name: string, resources: ResourceRequirements): void;
  remove(uid: string): void;
  /** Drops every pod not in keep (the kubelet's RemoveOrphanedPods). */
  retain(keep: ReadonlySet<string>): void;
}

export interface PodResourcesStoreOptions {
  /** `<root-dir>/allocated_pods_state` or `<root-dir>/actuated_pods_state`. */
  path: string;
  /** The document kind: "AllocatedPods" or "ActuatedPods". */
  kind: string;
  log: Logger;
}

/** Far above any real node (a pod's entry is a few hundred bytes); the limit only bounds a bug. */
const MAX_BYTES = 8 * 1024 * 1024;

export function createPodResourcesStore(opts: PodResourcesStoreOptions): PodResourcesStore {
  const entries = new Collection<Entry>({ path: opts.path, kind: opts.kind, keyOf: (e) => e.uid, maxBytes: MAX_BYTES, log: opts.log });
  // Written at once, as before the checkpoint writes were coalesced, and as the kubelet stores its state checkpoint at every change.
  const persist = (keep: (uid: string) => boolean = () => true) => {
    entries.prune(keep);
    entries.write();
  };
  return {
    get(uid) {
      const e = entries.get(uid);
      return e && { containers: cloneJson(e.containers) };
    },
    set(uid, info) {
      entries.set(uid, { uid, containers: cloneJson(info.containers) });
      persist();
    },
    setContainer(uid, name, resources) {
      const e = entries.get(uid) ?? { uid, containers: {} };
      entries.set(uid, { uid, containers: { ...e.containers, [name]: cloneJson(resources) } });
      persist();
    },
    remove(uid) {
      if (entries.get(uid) === undefined) return;
      entries.set(uid, undefined);
      persist();
    },
    retain(keep) {
      persist((uid) => keep.has(uid));
    },
  };
}
