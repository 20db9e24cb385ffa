/**
 * kubelet_container_log_filesystem_used_bytes (pkg/kubelet/metrics/collectors/log_metrics.go):
 * at each scrape, the bytes each container's logs use, from the same pod stats as
 * /stats/summary. A failed read leaves the family empty for that scrape, as the kubelet's
 * collector does.
 */
import { Gauge, type Registry } from "./prom.ts";

export interface ContainerLogUsage {
  uid: string;
  namespace: string;
  pod: string;
  container: string;
  usedBytes: bigint;
}

export function registerLogMetrics(registry: Registry, usage: () => Promise<ContainerLogUsage[]>, onError: (err: unknown) => void): void {
  new Gauge({
    name: "kubelet_container_log_filesystem_used_bytes",
    help: "[ALPHA] Bytes used by the container's logs on the filesystem.",
    labelNames: ["uid", "namespace", "pod", "container"],
    registers: [registry],
    async collect() {
      this.reset();
      let list: ContainerLogUsage[];
      try {
        list = await usage();
      } catch (err) {
        onError(err);
        return;
      }
      for (const u of list) this.set({ uid: u.uid, namespace: u.namespace, pod: u.pod, container: u.container }, Number(u.usedBytes));
    },
  });
}
