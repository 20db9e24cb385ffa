/**
 * MakeUserNsManager on a real host: the node's IDs (the `kubelet` user in /etc/passwd and
 * `getsubids`, or the default range), cut into pod ranges for maxPods, and the ranges of pods
 * already in the pods directory taken again. Any failure stops start-up, as it stops the kubelet.
 */
import { readFileSync } from "node:fs";
import type { Logger } from "../lib/index.ts";
import { RangeAllocator } from "./allocator.ts";
import { getKubeletMappings, passwdHasUser, type KubeletMappingsDeps } from "./kubelet-mappings.ts";
import { createUserNamespaceManager, recordPodsFromDisk, type RuntimeHandlerInfo, type UserNamespaceManager } from "./manager.ts";

export interface StartUserNamespaceManagerOptions {
  /** userNamespaces.idsPerPod (validated by config). */
  idsPerPod: number;
  maxPods: number;
  podDir(uid: string): string;
  /** The pods directory's pod UIDs (listPodsFromDisk). */
  listPodsFromDisk(): Promise<string[]>;
  runtimeHandlers(): readonly RuntimeHandlerInfo[];
  /** [0, 1): the random start of the free-range scan. */
  random: () => number;
  log: Logger;
  /** The host's user database and getsubids; tests replace them. */
  host?: KubeletMappingsDeps;
}

const hostDeps: KubeletMappingsDeps = {
  userExists(name) {
    try {
      return passwdHasUser(readFileSync("/etc/passwd", "utf8"), name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw err;
    }
  },
  findGetsubids: () => Bun.which("getsubids", { PATH: `${process.env.PATH ?? ""}:/usr/sbin:/usr/bin` }) ?? undefined,
  async run(argv) {
    const child = Bun.spawn([...argv], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (code !== 0) throw new Error(`${argv.join(" ")} exited with code ${code}: ${stderr.trim()}`);
    return stdout;
  },
};

export async function startUserNamespaceManager(opts: StartUserNamespaceManagerOptions): Promise<UserNamespaceManager> {
  let mappings;
  try {
    mappings = await getKubeletMappings(opts.idsPerPod, opts.host ?? hostDeps);
  } catch (err) {
    throw new Error(`create user namespace manager: kubelet mappings: ${(err as Error).message}`);
  }
  let allocator: RangeAllocator;
  try {
    allocator = new RangeAllocator({ ...mappings, idsPerPod: opts.idsPerPod, maxPods: opts.maxPods, random: opts.random });
  } catch (err) {
    throw new Error(`create user namespace manager: ${(err as Error).message}`);
  }
  opts.log.debug("User namespace manager mapping", { source: mappings.source, firstID: mappings.firstId, length: mappings.length, idsPerPod: opts.idsPerPod }, 5);
  try {
    recordPodsFromDisk(allocator, opts.podDir, await opts.listPodsFromDisk());
  } catch (err) {
    throw new Error(`create user namespace manager: ${(err as Error).message}`);
  }
  return createUserNamespaceManager({ allocator, podDir: opts.podDir, runtimeHandlers: opts.runtimeHandlers, log: opts.log });
}
