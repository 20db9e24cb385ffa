/**
 * The device a path's filesystem is mounted from, as cAdvisor's `device` label names it
 * (/dev/vda1, overlay, tmpfs): the source of the longest mountpoint in /proc/self/mountinfo
 * that holds the path.
 */

export interface Mount {
  mountpoint: string;
  source: string;
}

/** mountinfo lines: "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue". */
export function parseMountinfo(text: string): Mount[] {
  const out: Mount[] = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    if (dash < 0 || fields.length < dash + 3 || !fields[4]) continue;
    out.push({ mountpoint: unescapeOctal(fields[4]), source: unescapeOctal(fields[dash + 2]!) });
  }
  return out;
}

/** mountinfo escapes space, tab, newline and backslash as \ooo. */
const unescapeOctal = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

export function deviceOf(mounts: readonly Mount[], path: string): string {
  let best: Mount | undefined;
  for (const m of mounts) {
    const under = path === m.mountpoint || m.mountpoint === "/" || path.startsWith(`${m.mountpoint}/`);
    if (under && (!best || m.mountpoint.length >= best.mountpoint.length)) best = m;
  }
  return best?.source ?? "";
}
