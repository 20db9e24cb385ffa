/**
 * A pod's hostname and DNS domain (kubelet_pods.go GeneratePodHostNameAndDomain) and the name its
 * UTS namespace gets (util.GetNodenameForKernel). `spec.hostnameOverride` (HostnameOverride, GA
 * and locked on in 1.37) is the hostname as it is, with no domain, so neither the subdomain nor
 * the pod name shows through; otherwise `spec.hostname` or the pod name, and with a subdomain the
 * domain `<subdomain>.<ns>.svc.<clusterDomain>`. The same pair names the sandbox and the pod's IPs
 * in the managed /etc/hosts. Names were validated when the pod was decoded (the apiserver's rules
 * for API pods, podconfig's for the others).
 */
import type { Pod } from "../api/index.ts";

const HOSTNAME_MAX_LEN = 63;
/** The kernel's nodename field holds 64 characters plus the terminating NUL. */
const FQDN_MAX_LEN = 64;

export interface PodHostnameAndDomain {
  hostname: string;
  /** "" when the pod has no subdomain, or overrides its hostname. */
  domain: string;
}

/** truncatePodHostnameIfNeeded: cut to 63 characters, then without a trailing '-' or '.'. */
function truncatePodHostname(podName: string, hostname: string): string {
  if (hostname.length <= HOSTNAME_MAX_LEN) return hostname;
  const truncated = hostname.slice(0, HOSTNAME_MAX_LEN).replace(/[-.]+$/, "");
  if (truncated === "") throw new Error(`hostname for pod "${podName}" was invalid: "${hostname}"`);
  return truncated;
}

export function generatePodHostnameAndDomain(pod: Pod, clusterDomain: string): PodHostnameAndDomain {
  const podName = pod.metadata.name ?? "";
  const override = pod.spec.hostnameOverride;
  if (override !== undefined) return { hostname: truncatePodHostname(podName, override), domain: "" };
  const hostname = truncatePodHostname(podName, pod.spec.hostname || podName);
  const domain = pod.spec.subdomain ? `${pod.spec.subdomain}.${pod.metadata.namespace ?? ""}.svc.${clusterDomain}` : "";
  return { hostname, domain };
}

/** GetNodenameForKernel: the FQDN with setHostnameAsFQDN and a domain, else the short hostname. */
export function nodenameForKernel({ hostname, domain }: PodHostnameAndDomain, setHostnameAsFQDN: boolean | undefined): string {
  if (domain === "" || setHostnameAsFQDN !== true) return hostname;
  const fqdn = `${hostname}.${domain}`;
  if (fqdn.length > FQDN_MAX_LEN) {
    throw new Error(
      `failed to construct FQDN from pod hostname and cluster domain, FQDN ${fqdn} is too long (${FQDN_MAX_LEN} characters is the max, ${fqdn.length} characters requested)`,
    );
  }
  return fqdn;
}
