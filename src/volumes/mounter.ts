/**
 * tmpfs mounts for memory-backed volumes (emptyDir medium Memory, and the secret, projected and
 * downwardAPI volumes the kubelet wraps in one), through mount(8) and umount(8) as the kubelet's
 * mounter does, and the mount table read from /proc/self/mountinfo.
 */
import { readFileSync } from "node:fs";

export interface Mounter {
  /** mount -t tmpfs [-o size=<bytes>] tmpfs <dir> */
  mountTmpfs(dir: string, sizeBytes: bigint | undefined): Promise<void>;
  unmount(dir: string): Promise<void>;
  /** Mount points at or below dir, deepest first. */
  mountsUnder(dir: string): string[];
}

class MountError extends Error {
  override readonly name = "MountError";
}

async function run(argv: string[]): Promise<void> {
  const p = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  if (code !== 0) {
    // The kubelet's mount error wording: the command, its arguments and its output.
    throw new MountError(`mount failed: exit status ${code}\nMounting command: ${argv[0]}\nMounting arguments: ${argv.slice(1).join(" ")}\nOutput: ${(out + err).trim()}`);
  }
}

/** Mount points from mountinfo text (field 5, octal escapes decoded). */
export function parseMountPoints(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const field = line.split(" ")[4];
    if (field) out.push(field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8))));
  }
  return out;
}

export const realMounter: Mounter = {
  mountTmpfs: (dir, size) => run(["mount", "-t", "tmpfs", ...(size !== undefined && size > 0n ? ["-o", `size=${size}`] : []), "tmpfs", dir]),
  unmount: (dir) => run(["umount", dir]),
  mountsUnder(dir) {
    const points = parseMountPoints(readFileSync("/proc/self/mountinfo", "utf8"));
    return points.filter((p) => p === dir || p.startsWith(dir + "/")).sort((a, b) => b.length - a.length);
  },
};
