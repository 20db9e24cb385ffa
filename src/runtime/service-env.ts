/**
 * Service-link environment variables (the kubelet's getServiceEnvVarMap and pkg/kubelet/envvars):
 * `<NAME>_SERVICE_HOST`, `<NAME>_SERVICE_PORT`, one `<NAME>_SERVICE_PORT_<PORT NAME>` per named
 * port, and Docker-link style `<NAME>_PORT…` variables, for the Services of the pod's namespace
 * when enableServiceLinks is true, and always for the `kubernetes` Service of `default`. Services
 * without a cluster IP (headless, "None") give none.
 */
import type { Service } from "../api/index.ts";

const MASTER_NAMESPACE = "default";
const MASTER_SERVICES = new Set(["kubernetes"]);

function isServiceIPSet(s: Service): boolean {
  const ip = s.spec?.clusterIP ?? "";
  return ip !== "" && ip !== "None";
}

function envName(name: string): string {
  return name.replaceAll("-", "_").toUpperCase();
}

function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** FromServices: the variables of the given Services, in their order. */
function fromServices(services: Service[]): [string, string][] {
  const out: [string, string][] = [];
  for (const s of services) {
    const ports = s.spec?.ports ?? [];
    if (!isServiceIPSet(s) || ports.length === 0) continue;
    const ip = s.spec!.clusterIP!;
    const prefix = envName(s.metadata.name ?? "");
    out.push([`${prefix}_SERVICE_HOST`, ip]);
    out.push([`${prefix}_SERVICE_PORT`, String(ports[0].port)]);
    for (const p of ports) if (p.name) out.push([`${prefix}_SERVICE_PORT_${envName(p.name)}`, String(p.port)]);
    for (const [i, p] of ports.entries()) {
      const protocol = p.protocol || "TCP";
      const url = `${protocol.toLowerCase()}://${joinHostPort(ip, p.port)}`;
      if (i === 0) out.push([`${prefix}_PORT`, url]);
      const portPrefix = `${prefix}_PORT_${p.port}_${protocol.toUpperCase()}`;
      out.push([portPrefix, url], [`${portPrefix}_PROTO`, protocol.toLowerCase()], [`${portPrefix}_PORT`, String(p.port)], [`${portPrefix}_ADDR`, ip]);
    }
  }
  return out;
}

/** getServiceEnvVarMap: the service-link variables of a pod in `namespace`. */
export function serviceEnvVars(services: Service[], namespace: string, enableServiceLinks: boolean): Map<string, string> {
  const byName = new Map<string, Service>();
  for (const s of services) {
    if (!isServiceIPSet(s)) continue;
    const name = s.metadata.name ?? "";
    if (s.metadata.namespace === MASTER_NAMESPACE && MASTER_SERVICES.has(name)) {
      if (!byName.has(name)) byName.set(name, s);
    } else if (s.metadata.namespace === namespace && enableServiceLinks) {
      byName.set(name, s);
    }
  }
  const sorted = [...byName.values()].sort((a, b) => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""));
  return new Map(fromServices(sorted));
}
