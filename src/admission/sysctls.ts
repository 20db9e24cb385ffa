/**
 * The kubelet's sysctl admission (pkg/kubelet/sysctl, component-helpers node/util/sysctl): a pod
 * may set only the safe sysctls (namespaced, isolated from the host and other pods) and those the
 * node allows with --allowed-unsafe-sysctls / allowedUnsafeSysctls (names or prefixes ending in
 * `*`), and none of a namespace the pod shares with the host (a net.* sysctl with hostNetwork, an
 * IPC one with hostIPC, a user.* one without a user namespace). Anything else is rejected at
 * admission with SysctlForbidden, before it would reach runc and fail the sandbox. Pure.
 */
import { normalizeSysctlName, type Pod } from "../api/index.ts";
import type { AdmitResult } from "./predicates.ts";

type SysctlNamespace = "IPC" | "Net" | "UTS" | "User";

const NAME_NAMESPACE: Record<string, SysctlNamespace> = {
  "kernel.domainname": "UTS",
  "kernel.sem": "IPC",
  "kernel.shmall": "IPC",
  "kernel.shmmax": "IPC",
  "kernel.shmmni": "IPC",
  "kernel.shm_rmid_forced": "IPC",
  "kernel.shm": "IPC",
  "kernel.msgmax": "IPC",
  "kernel.msgmnb": "IPC",
  "kernel.msgmni": "IPC",
  "kernel.msg": "IPC",
};
const PREFIX_NAMESPACE: [string, SysctlNamespace][] = [
  ["net", "Net"],
  ["fs.mqueue", "IPC"],
  ["user", "User"],
];

/** The safe sysctls, each with the kernel release from which it is namespaced (safe_sysctls.go). */
const SAFE_SYSCTLS: [name: string, sinceKernel?: string][] = [
  ["kernel.shm_rmid_forced"],
  ["net.ipv4.ip_local_port_range"],
  ["net.ipv4.tcp_syncookies"],
  ["net.ipv4.ping_group_range"],
  ["net.ipv4.ip_unprivileged_port_start"],
  ["net.ipv4.ip_local_reserved_ports", "3.16"],
  ["net.ipv4.tcp_keepalive_time", "4.5"],
  ["net.ipv4.tcp_fin_timeout", "4.6"],
  ["net.ipv4.tcp_keepalive_intvl", "4.5"],
  ["net.ipv4.tcp_keepalive_probes", "4.5"],
  ["net.ipv4.tcp_rmem", "4.15"],
  ["net.ipv4.tcp_wmem", "4.15"],
  ["net.ipv4.tcp_slow_start_after_idle", "4.15"],
  ["net.ipv4.tcp_notsent_lowat", "4.6"],
];

/** The numeric parts of a kernel release ("6.1.0-18-amd64" → [6, 1, 0]); undefined when it has none. */
function kernelVersion(release: string): number[] | undefined {
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(release.trim());
  return m ? [m[1], m[2], m[3]].map((x) => Number(x ?? 0)) : undefined;
}

function atLeast(have: number[], want: number[]): boolean {
  for (let i = 0; i < want.length; i++) {
    const h = have[i] ?? 0;
    if (h !== want[i]) return h > want[i]!;
  }
  return true;
}

/**
 * SafeSysctlAllowlist: the safe sysctls this kernel namespaces. A sysctl namespaced only from a
 * later kernel (or any such, when the release does not parse) is left out, as the kubelet does.
 */
export function safeSysctls(kernelRelease: string): string[] {
  const have = kernelVersion(kernelRelease);
  return SAFE_SYSCTLS.filter(([, since]) => since === undefined || (have !== undefined && atLeast(have, kernelVersion(since)!))).map(([name]) => name);
}

function namespaceOf(name: string): SysctlNamespace | undefined {
  const exact = NAME_NAMESPACE[name];
  if (exact) return exact;
  return PREFIX_NAMESPACE.find(([p]) => name.startsWith(`${p}.`))?.[1];
}

const SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?";
const PATTERN_FMT = `(${SEGMENT}[\\./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]`;
const PATTERN = new RegExp(`^${PATTERN_FMT}$`);
const MAX_LENGTH = 253;

export class SysctlPatternError extends Error {}

export interface SysctlAllowlist {
  /** The patternAllowlist admit handler: SysctlForbidden for the first sysctl not allowed. */
  admit(pod: Pod): AdmitResult;
}

/**
 * NewAllowlist over the safe sysctls and the node's allowed unsafe ones. Throws
 * SysctlPatternError for a pattern that is not a sysctl name (or prefix with `*`), or whose
 * sysctls are not namespaced (the kubelet refuses to start on either).
 */
export function createSysctlAllowlist(patterns: string[]): SysctlAllowlist {
  const names = new Map<string, SysctlNamespace>();
  const prefixes = new Map<string, SysctlNamespace>();
  for (const pattern of patterns) {
    if (pattern.length > MAX_LENGTH || !PATTERN.test(pattern)) {
      throw new SysctlPatternError(`sysctl ${JSON.stringify(pattern)} must have at most ${MAX_LENGTH} characters and match regex ${PATTERN_FMT}`);
    }
    let name = normalizeSysctlName(pattern);
    const star = name.indexOf("*");
    if (star >= 0) name = name.slice(0, star);
    const ns = namespaceOf(name);
    if (ns === undefined) throw new SysctlPatternError(`the sysctls ${JSON.stringify(name)} are not known to be namespaced`);
    (star >= 0 ? prefixes : names).set(name, ns);
  }

  function validate(raw: string, host: Record<SysctlNamespace, boolean>): string | undefined {
    const name = normalizeSysctlName(raw);
    const ns = names.get(name) ?? [...prefixes].find(([p]) => name.startsWith(p))?.[1];
    if (ns === undefined) return `${JSON.stringify(name)} not allowlisted`;
    if (host[ns]) return `${JSON.stringify(name)} not allowed with host ${ns} enabled`;
    return undefined;
  }

  return {
    admit(pod) {
      const sysctls = pod.spec.securityContext?.sysctls ?? [];
      // The UTS namespace is not checked: the kubelet lets kernel.domainname through with hostNetwork.
      const host = { IPC: pod.spec.hostIPC === true, Net: pod.spec.hostNetwork === true, User: pod.spec.hostUsers !== false, UTS: false };
      for (const s of sysctls) {
        const err = validate(s.name, host);
        if (err !== undefined) return { admit: false, reason: "SysctlForbidden", message: `forbidden sysctl: ${err}` };
      }
      return { admit: true };
    },
  };
}
