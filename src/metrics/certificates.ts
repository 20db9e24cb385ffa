/**
 * kubelet_certificate_manager_client_ttl_seconds and kubelet_certificate_manager_server_ttl_seconds
 * (cmd/kubelet/app/server.go, pkg/kubelet/certificate/kubelet.go): the seconds until the client
 * certificate of the kubeconfig, or the kubelet API's serving certificate, expires, truncated,
 * negative once expired, +Inf when there is none or it does not parse. The kubelet registers them
 * only with certificate rotation; bunlet rotates nothing but serves them whenever it has the
 * certificate, so the kubernetes-mixin's expiry alerts watch a bunlet node too. The certificate
 * is read at each scrape (a file replaced by whoever rotates it is seen).
 */
import { X509Certificate } from "node:crypto";
import { Gauge, type Registry } from "./prom.ts";

const help = {
  client:
    "[ALPHA] Gauge of the TTL (time-to-live) of the Kubelet's client certificate. The value is in seconds until certificate expiry (negative if already expired). If client certificate is invalid or unused, the value will be +INF.",
  server:
    "[ALPHA] Gauge of the shortest TTL (time-to-live) of the Kubelet's serving certificate. The value is in seconds until certificate expiry (negative if already expired). If serving certificate is invalid or unused, the value will be +INF.",
};

/** Seconds from now until the PEM's (first) certificate expires; +Inf without a parseable one. */
function certificateTtlSeconds(pem: string | undefined, nowMs: number): number {
  if (pem === undefined) return Infinity;
  try {
    return Math.trunc((Date.parse(new X509Certificate(pem).validTo) - nowMs) / 1000);
  } catch {
    return Infinity;
  }
}

export function registerCertificateTtl(registry: Registry, which: "client" | "server", readPem: () => string | undefined, now: () => number): void {
  new Gauge({
    name: `kubelet_certificate_manager_${which}_ttl_seconds`,
    help: help[which],
    registers: [registry],
    collect() {
      let pem: string | undefined;
      try {
        pem = readPem();
      } catch {
        pem = undefined;
      }
      this.set(certificateTtlSeconds(pem, now()));
    },
  });
}
