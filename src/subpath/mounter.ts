/**
 * The mounts the subPath code makes and removes: bind mounts through mount(8) with
 * `--no-canonicalize` (the source is a /proc/<pid>/fd/<n> magic link that must be handed to the
 * kernel as it is, not resolved by mount(8) to a path a container could have swapped), unmounts
 * through umount(8), and the mount table from /proc/self/mountinfo.
 */
import { readFileSync } from "node:fs";

export interface BindMounter {
  /** mount --no-canonicalize --bind <source> <target> */
  bindMount(source: string, target: string): Promise<void>;
  /** umount [-l] <target>; lazy detaches a mount that is still busy. */
  unmount(target: string, lazy?: boolean): Promise<void>;
  /** Whether path is a mount point now (/proc/self/mountinfo). */
  isMountPoint(path: string): boolean;
}

class MountCommandError extends Error {
  override readonly name = "MountCommandError";
}

async function run(argv: string[]): Promise<void> {
  const p = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  if (code !== 0) {
    // The kubelet's mount error wording: the command, its arguments and its output.
    throw new MountCommandError(`mount failed: exit status ${code}\nMounting command: ${argv[0]}\nMounting arguments: ${argv.slice(1).join(" ")}\nOutput: ${(out + err).trim()}`);
  }
}

/** Mount points from mountinfo text (field 5, octal escapes decoded). */
function parseMountPoints(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const field = line.split(" ")[4];
    if (field) out.push(field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8))));
  }
  return out;
}

/** Mount points at or below dir, deepest first. */
export function mountPointsUnder(dir: string, mountInfo = "/proc/self/mountinfo"): string[] {
  const points = parseMountPoints(readFileSync(mountInfo, "utf8"));
  return points.filter((p) => p === dir || p.startsWith(dir + "/")).sort((a, b) => b.length - a.length);
}

export const realBindMounter: BindMounter = {
  bindMount: (source, target) => run(["mount", "--no-canonicalize", "--bind", source, target]),
  // The target is a path bunlet made under the pod directory; umount must not resolve it either.
  unmount: (target, lazy = false) => run(["umount", "--no-canonicalize", ...(lazy ? ["-l"] : []), target]),
  isMountPoint: (path) => parseMountPoints(readFileSync("/proc/self/mountinfo", "utf8")).includes(path),
};
