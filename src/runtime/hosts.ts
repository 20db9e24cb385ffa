/**
 * The kubelet-managed /etc/hosts (kubelet_pods.go makeHostsMount, ensureHostsFile): written to
 * `<podDir>/etc-hosts` (0644) and bind-mounted into every container of a pod that has an IP,
 * unless the container mounts something at /etc/hosts itself. A pod network pod gets localhost
 * entries, its own IPs with its hostname (FQDN first when it has a subdomain; hostnameOverride
 * alone) and its hostAliases;
 * a host-network pod gets the node's file with the aliases appended.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Container, HostAlias, Pod } from "../api/index.ts";
import { generatePodHostnameAndDomain } from "./hostname.ts";

export const ETC_HOSTS_PATH = "/etc/hosts";

function aliasEntries(aliases: HostAlias[] | undefined): string {
  if (!aliases || aliases.length === 0) return "";
  let out = "\n# Entries added by HostAliases.\n";
  for (const a of aliases) out += `${a.ip}\t${(a.hostnames ?? []).join("\t")}\n`;
  return out;
}

/** managedHostsFileContent: the file of a pod on the pod network. */
export function managedHostsFileContent(podIPs: string[], hostName: string, hostDomain: string, aliases?: HostAlias[]): string {
  let out = "# Kubernetes-managed hosts file.\n";
  out += "127.0.0.1\tlocalhost\n";
  out += "::1\tlocalhost ip6-localhost ip6-loopback\n";
  out += "fe00::0\tip6-localnet\n";
  out += "fe00::0\tip6-mcastprefix\n";
  out += "fe00::1\tip6-allnodes\n";
  out += "fe00::2\tip6-allrouters\n";
  for (const ip of podIPs) out += hostDomain ? `${ip}\t${hostName}.${hostDomain}\t${hostName}\n` : `${ip}\t${hostName}\n`;
  return out + aliasEntries(aliases);
}

/** nodeHostsFileContent: the file of a host-network pod, the node's hosts file first. */
export function nodeHostsFileContent(nodeHosts: string, aliases?: HostAlias[]): string {
  return "# Kubernetes-managed hosts file (host network).\n" + nodeHosts + aliasEntries(aliases);
}

/** Whether this container gets the managed file (a pod IP, and no mount of its own at /etc/hosts). */
export function shouldMountHostsFile(container: Container, podIPs: string[]): boolean {
  return podIPs.length > 0 && !(container.volumeMounts ?? []).some((m) => m.mountPath === ETC_HOSTS_PATH);
}

/** Writes `<podDir>/etc-hosts` for the pod and returns its path. */
export function ensureHostsFile(podDir: string, pod: Pod, podIPs: string[], clusterDomain: string, nodeHostsPath = ETC_HOSTS_PATH): string {
  // The pod directory is made before the sandbox; made here too for a runtime used on its own.
  mkdirSync(podDir, { recursive: true });
  const file = join(podDir, "etc-hosts");
  let content: string;
  if (pod.spec.hostNetwork) content = nodeHostsFileContent(readFileSync(nodeHostsPath, "utf8"), pod.spec.hostAliases);
  else {
    const { hostname, domain } = generatePodHostnameAndDomain(pod, clusterDomain);
    content = managedHostsFileContent(podIPs, hostname, domain, pod.spec.hostAliases);
  }
  writeFileSync(file, content, { mode: 0o644 });
  chmodSync(file, 0o644);
  return file;
}
