/**
 * The PodSandboxConfig the kubelet sends to RunPodSandbox (generatePodSandboxConfig): metadata with
 * the attempt, the kubelet's labels and annotations, hostname (hostnameOverride, or the FQDN with
 * setHostnameAsFQDN; none for host-network pods, which keep the node's), DNS, the pod log directory, port mappings and the Linux settings.
 */
import { normalizeSysctlName, type ContainerPort, type Pod } from "../api/index.ts";
import { makePodSandboxConfig, Protocol, type PodSandboxConfig } from "../cri/index.ts";
import { newPodAnnotations, newPodLabels } from "../container/index.ts";
import { podDnsConfig, type ClusterDns, type DnsConfig } from "./dns.ts";
import { generatePodHostnameAndDomain, nodenameForKernel } from "./hostname.ts";
import { podLogsDirectory } from "./logs.ts";
import { sandboxSecurityContext } from "./security.ts";
import { criUserNamespace, noUserNamespaces, type PodUserNamespace } from "./userns.ts";

export interface SandboxConfigOptions {
  podLogsDir: string;
  /** The node's resolver settings (Default / ClusterFirst without cluster DNS). */
  nodeDns: DnsConfig;
  /** --cluster-dns / --cluster-domain for ClusterFirst pods. */
  clusterDns: ClusterDns;
  /** The pod's cgroup as the runtime gets it (linux.cgroup_parent); "" = the runtime's default. */
  podCgroupParent?: (pod: Pod) => string;
  /**
   * The pod's user namespace (GetOrCreateUserNamespaceMappings for its RuntimeClass handler);
   * throws when it cannot have one, and then the pod gets no sandbox. Default: the node's
   * namespace, and `hostUsers: false` refused.
   */
  userNamespace?: (pod: Pod) => PodUserNamespace;
}

function toProtocol(p: ContainerPort["protocol"]): Protocol {
  return p === "UDP" ? Protocol.UDP : p === "SCTP" ? Protocol.SCTP : Protocol.TCP;
}

/** Every declared port of the regular containers, a repeated name (or identical mapping) once. */
function portMappings(pod: Pod) {
  const out: { protocol: Protocol; containerPort: number; hostPort: number; hostIp: string }[] = [];
  for (const c of pod.spec.containers) {
    const seen = new Set<string>();
    for (const p of c.ports ?? []) {
      const family = !p.hostIP ? "any" : p.hostIP.includes(":") ? "v6" : "v4";
      const key = p.name || `${family}-${p.protocol ?? "TCP"}-${p.hostIP ?? ""}:${p.containerPort}:${p.hostPort ?? 0}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ protocol: toProtocol(p.protocol), containerPort: p.containerPort, hostPort: p.hostPort ?? 0, hostIp: p.hostIP ?? "" });
    }
  }
  return out;
}

export function generatePodSandboxConfig(pod: Pod, attempt: number, opts: SandboxConfigOptions): PodSandboxConfig {
  const { name = "", namespace = "", uid = "" } = pod.metadata;
  const sysctls: Record<string, string> = {};
  for (const s of pod.spec.securityContext?.sysctls ?? []) sysctls[normalizeSysctlName(s.name)] = s.value;
  const userns = criUserNamespace(opts.userNamespace ? opts.userNamespace(pod) : noUserNamespaces(pod, ""));
  return makePodSandboxConfig({
    metadata: { name, namespace, uid, attempt },
    hostname: pod.spec.hostNetwork ? "" : nodenameForKernel(generatePodHostnameAndDomain(pod, opts.clusterDns.domain), pod.spec.setHostnameAsFQDN),
    logDirectory: podLogsDirectory(opts.podLogsDir, namespace, name, uid),
    dnsConfig: podDnsConfig(pod, opts.nodeDns, opts.clusterDns),
    portMappings: portMappings(pod),
    labels: newPodLabels(pod),
    annotations: newPodAnnotations(pod),
    linux: { cgroupParent: opts.podCgroupParent?.(pod) ?? "", securityContext: sandboxSecurityContext(pod, userns), sysctls },
  });
}
