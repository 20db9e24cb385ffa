/**
 * The user namespace area of the wiring (the kubelet's MakeUserNsManager): the node's ID ranges
 * for `hostUsers: false` pods, with the ranges of pods already in the pods directory taken again
 * before any pod syncs. The runtime manager asks it for each pod's userns_options; the handlers
 * it checks come from the runtime's Status answers (read later, so through a function).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { BunletConfig } from "../config/index.ts";
import { startUserNamespaceManager, type RuntimeHandlerInfo, type UserNamespaceManager } from "../userns/index.ts";
import type { WireBase } from "./wire-base.ts";

export async function wireUserNamespaces(config: BunletConfig, base: WireBase, runtimeHandlers: () => readonly RuntimeHandlerInfo[]): Promise<UserNamespaceManager> {
  const podsDir = join(config.rootDir, "pods");
  return startUserNamespaceManager({
    idsPerPod: config.userNamespacesIdsPerPod,
    maxPods: config.maxPods,
    podDir: (uid) => join(podsDir, uid),
    async listPodsFromDisk() {
      try {
        return (await readdir(podsDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw err;
      }
    },
    runtimeHandlers,
    random: base.random,
    log: base.log,
  });
}
