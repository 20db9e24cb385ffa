// Best-effort host cleanup for e2e instances: what CRI teardown did not remove, this does.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename } from "node:path";

interface Proc {
  pid: number;
  ppid: number;
  args: string[];
}

function listProcesses(): Proc[] {
  const procs: Proc[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
      procs.push({ pid: Number(entry), ppid, args });
    } catch {
      // exited while we looked
    }
  }
  return procs;
}

function kill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** SIGKILLs pid and everything below it, children first. */
function killTree(procs: Proc[], pid: number): void {
  const order: number[] = [];
  const visit = (at: number) => {
    for (const child of procs.filter((p) => p.ppid === at)) visit(child.pid);
    order.push(at);
  };
  visit(pid);
  order.forEach(kill);
}

/** Pids of processes with an argument at or below `dir` (other than this process). */
export function pidsNaming(dir: string): number[] {
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  return listProcesses()
    .filter((p) => p.pid !== process.pid && p.args.some((a) => a === dir || a.includes(prefix)))
    .map((p) => p.pid);
}

/**
 * The instance dir `root/prefix…` an argument names, if any:
 * `/tmp/bunlet-managed-x/containerd/config.toml` → `/tmp/bunlet-managed-x`.
 */
export function instanceDirNamed(arg: string, root: string, prefix: string): string | undefined {
  const base = root.endsWith("/") ? root : `${root}/`;
  // The path is the whole argument or a flag's value (`--root=/tmp/…`).
  const start = base + prefix;
  const at = arg.startsWith(start) ? 0 : arg.includes(`=${start}`) ? arg.indexOf(`=${start}`) + 1 : -1;
  if (at < 0) return undefined;
  const name = arg.slice(at + base.length).split("/")[0]!;
  return base + name;
}

const isContainerdFamily = (p: Proc) => {
  const exe = basename(p.args[0] ?? "");
  return exe === "containerd" || exe.startsWith("containerd-shim");
};

/**
 * SIGKILLs every containerd and containerd shim (each with everything below it, children first)
 * whose arguments name an instance dir `root/prefix…` that no longer exists: its owner record went
 * with the dir, so nothing else can ever stop it. Returns the pids of the containerds and shims.
 */
export function killContainerdOfGoneDirs(root: string, prefix: string): number[] {
  const procs = listProcesses();
  const orphans = procs.filter((p) => {
    if (p.pid === process.pid || !isContainerdFamily(p)) return false;
    const dirs = p.args.map((a) => instanceDirNamed(a, root, prefix)).filter((d) => d !== undefined);
    return dirs.length > 0 && dirs.every((d) => !existsSync(d));
  });
  for (const orphan of orphans) killTree(procs, orphan.pid);
  return orphans.map((p) => p.pid);
}

/** Pids of the shims serving the containerd at `socketPath` (`containerd-shim-runc-v2 … -address SOCK`). */
export function shimPids(socketPath: string): number[] {
  return listProcesses()
    .filter((p) => p.args[0]?.includes("containerd-shim") && p.args.includes(socketPath))
    .map((p) => p.pid);
}

/** SIGKILLs each shim of `socketPath` and everything below it, children first. Returns how many shims. */
export function killShims(socketPath: string): number {
  const procs = listProcesses();
  const shims = procs.filter((p) => p.args[0]?.includes("containerd-shim") && p.args.includes(socketPath));
  for (const shim of shims) killTree(procs, shim.pid);
  return shims.length;
}

function unescapeMount(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));
}

/** Mount points at or below `dir`, deepest first. */
export function mountsUnder(dir: string): string[] {
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4])
    .filter((m): m is string => m !== undefined)
    .map(unescapeMount)
    .filter((m) => m === dir || m.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
}

function quiet(cmd: string[]): number {
  return Bun.spawnSync(cmd, { stdout: "ignore", stderr: "ignore" }).exitCode;
}

/** Lazily unmounts everything at or below `dir`. */
export function unmountUnder(dir: string): void {
  for (const mount of mountsUnder(dir)) quiet(["umount", "-l", mount]);
}

export function deleteLink(name: string): void {
  if (quiet(["ip", "link", "show", name]) === 0) quiet(["ip", "link", "del", name]);
}

/**
 * Removes nat rules and CNI chains that mention `subnet` (a /24, e.g. 10.89.7.0/24): the bridge
 * plugin's ipMasq rules and portmap's DNAT chains when a sandbox was never torn down through CNI.
 */
export function deleteNatRulesFor(subnet: string): void {
  const prefix = subnet.split(".").slice(0, 3).join(".") + ".";
  const mentions = new RegExp(`(^|[^0-9])${prefix.replaceAll(".", "\\.")}`);
  const dump = Bun.spawnSync(["iptables-save", "-t", "nat"], { stdout: "pipe", stderr: "ignore" });
  if (dump.exitCode !== 0) return;
  const rules = dump.stdout.toString().split("\n").filter((l) => l.startsWith("-A "));
  const doomed = new Set<string>();
  for (const rule of rules) {
    const chain = rule.split(" ")[1]!;
    if (chain.startsWith("CNI-") && !chain.startsWith("CNI-HOSTPORT-") && mentions.test(rule)) doomed.add(chain);
  }
  // Delete by rule number (highest first per chain), which avoids re-quoting iptables-save output.
  const byChain = new Map<string, number[]>();
  const seen = new Map<string, number>();
  for (const rule of rules) {
    const [, chain, ...rest] = rule.split(" ");
    const index = (seen.get(chain!) ?? 0) + 1;
    seen.set(chain!, index);
    if (doomed.has(chain!)) continue;
    const jump = rest.indexOf("-j");
    const target = jump >= 0 ? rest[jump + 1] : undefined;
    if ((target && doomed.has(target)) || mentions.test(rule)) byChain.set(chain!, [...(byChain.get(chain!) ?? []), index]);
  }
  for (const [chain, indexes] of byChain) {
    for (const index of indexes.reverse()) quiet(["iptables", "-t", "nat", "-D", chain, String(index)]);
  }
  for (const chain of doomed) {
    quiet(["iptables", "-t", "nat", "-F", chain]);
    quiet(["iptables", "-t", "nat", "-X", chain]);
  }
}
