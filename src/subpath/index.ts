// subPath safety (the kubelet's pkg/volume/util/subpath): subPaths opened without following
// symlinks and bind-mounted from the opened descriptor, missing subPath directories created the
// same way, and the pod's subPath mounts cleaned up before its volumes are torn down.
import type { Logger } from "../lib/index.ts";
import { prepareSafeSubpath, type Subpath } from "./bind.ts";
import { cleanSubPaths } from "./clean.ts";
import { realBindMounter, type BindMounter } from "./mounter.ts";
import { safeMakeDir } from "./safe-open.ts";

export { pathExists } from "./bind.ts";
export { SubPathError } from "./safe-open.ts";

/** The kubelet's subpath.Interface. */
export interface Subpather {
  /** Bind-mounts the subPath safely; resolves to the path the runtime mounts into the container. */
  prepareSafeSubpath(sp: Subpath): Promise<string>;
  /** Creates subdir (relative) inside base without leaving it, each new directory with mode perm. */
  safeMakeDir(subdir: string, base: string, perm: number): void;
  /** Unmounts and removes every subPath mount of the pod directory. */
  cleanSubPaths(podDir: string): Promise<void>;
}

interface SubpatherOptions {
  log: Logger;
  /** Default: mount(8)/umount(8) and /proc/self/mountinfo. */
  mounter?: BindMounter;
  /** Default: this process's pid. */
  pid?: number;
}

export function createSubpather(opts: SubpatherOptions): Subpather {
  const deps = { log: opts.log, mounter: opts.mounter ?? realBindMounter, pid: opts.pid ?? process.pid };
  return {
    prepareSafeSubpath: (sp) => prepareSafeSubpath(deps, sp),
    safeMakeDir,
    cleanSubPaths: (podDir) => cleanSubPaths(deps, podDir),
  };
}
