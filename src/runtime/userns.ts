/**
 * A pod's user namespace in its CRI configs (kuberuntime/util NamespacesForPod and
 * applyPlatformSpecificContainerConfig): the sandbox's and every container's
 * NamespaceOption.userns_options, and, for a pod with its own namespace, the same UID and GID
 * mappings on every container mount, so the runtime makes them idmapped mounts and the pod's users
 * read its volumes as the node's users own them (the kubelet changes no file ownership for this).
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Pod } from "../api/index.ts";
import { NamespaceMode, type MountSchema, type UserNamespace, type UserNamespaceSchema } from "../cri/index.ts";

export interface IdMapping {
  hostId: number;
  containerId: number;
  length: number;
}

/** What the user namespace manager answers for a pod (src/userns). */
export type PodUserNamespace = { mode: "NODE" } | { mode: "POD"; uids: IdMapping[]; gids: IdMapping[] };

/** GetOrCreateUserNamespaceMappings for a pod and its RuntimeClass handler; throws when the pod cannot have its own. */
export type UserNamespaceSource = (pod: Pod, runtimeHandler: string) => PodUserNamespace;

/**
 * Without a user namespace manager (a runtime manager built for tests or tools): the node's
 * namespace, and a pod that asks for its own is refused with the kubelet's words for a runtime
 * that cannot make one. Never the node's identity mapping for `hostUsers: false`.
 */
export const noUserNamespaces: UserNamespaceSource = (pod) => {
  if (pod.spec.hostUsers === false) throw new Error("can't set `spec.hostUsers: false`, runtime does not support user namespaces");
  return { mode: "NODE" };
};

export type UserNamespaceInit = MessageInitShape<typeof UserNamespaceSchema>;

export function criUserNamespace(u: PodUserNamespace): UserNamespaceInit {
  if (u.mode === "NODE") return { mode: NamespaceMode.NODE };
  const copy = (ms: IdMapping[]) => ms.map((m) => ({ hostId: m.hostId, containerId: m.containerId, length: m.length }));
  return { mode: NamespaceMode.POD, uids: copy(u.uids), gids: copy(u.gids) };
}

type MountInit = MessageInitShape<typeof MountSchema>;

/** Every mount of a container in the pod's own user namespace gets its mappings (idmapped mounts). */
export function idmapMounts<M extends MountInit>(mounts: M[], userns: UserNamespace | UserNamespaceInit | undefined): M[] {
  if (!userns || userns.mode !== NamespaceMode.POD) return mounts;
  const copy = (ms: readonly { hostId?: number; containerId?: number; length?: number }[] | undefined) =>
    (ms ?? []).map((m) => ({ hostId: m.hostId ?? 0, containerId: m.containerId ?? 0, length: m.length ?? 0 }));
  return mounts.map((m) => ({ ...m, uidMappings: copy(userns.uids), gidMappings: copy(userns.gids) }));
}
