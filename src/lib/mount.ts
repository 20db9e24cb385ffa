/**
 * mount(8) and umount(8) as the kubelet's mounter runs them, and the mount table from
 * /proc/self/mountinfo: shared by the subPath bind mounts (subpath), the tmpfs volumes (volumes)
 * and container GC's check for mounts below a pod directory (runtime).
 */
import { readFileSync } from "node:fs";

class MountError extends Error {
  override readonly name = "MountError";
}

/** Runs a mount or umount command; a failure is a MountError in the kubelet's words (the command, its arguments, its output). */
export async function runMountCommand(argv: string[]): Promise<void> {
  const p = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  if (code !== 0) {
    throw new MountError(`mount failed: exit status ${code}\nMounting command: ${argv[0]}\nMounting arguments: ${argv.slice(1).join(" ")}\nOutput: ${(out + err).trim()}`);
  }
}

/** Mount points from mountinfo text (field 5, octal escapes such as \040 decoded). */
export function parseMountPoints(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const field = line.split(" ")[4];
    if (field) out.push(field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8))));
  }
  return out;
}

/** Mount points now at or below dir, deepest first (the order to unmount them in). */
export function mountPointsUnder(dir: string, mountInfo = "/proc/self/mountinfo"): string[] {
  const points = parseMountPoints(readFileSync(mountInfo, "utf8"));
  return points.filter((p) => p === dir || p.startsWith(`${dir}/`)).sort((a, b) => b.length - a.length);
}
