/**
 * The volume operations' family (pkg/volume/util/metrics.go): every set-up (`volume_mount`) and
 * tear-down (`volume_unmount`) of a pod volume, timed by plugin, with status "success" or
 * "fail-unknown"; `migrated` is always "false" (bunlet has no in-tree-to-CSI migration).
 */
import { Gauge, Histogram, type Registry } from "./prom.ts";

export function volumeMetrics(r: Registry[]) {
  return {
    storageOperationDuration: new Histogram({
      name: "storage_operation_duration_seconds",
      help: "[BETA] Storage operation duration",
      labelNames: ["volume_plugin", "operation_name", "status", "migrated"],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 25, 50, 120, 300, 600],
      registers: r,
    }),
  };
}

/** volume_manager_total_volumes, from the volume manager's counts at each scrape. */
export function registerVolumeCounts(registry: Registry, counts: () => { plugin: string; state: string; count: number }[]): void {
  new Gauge({
    name: "volume_manager_total_volumes",
    help: "[ALPHA] Number of volumes in Volume Manager",
    labelNames: ["plugin_name", "state"],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of counts()) this.set({ plugin_name: c.plugin, state: c.state }, c.count);
    },
  });
}

/**
 * kubelet_podcertificate_states, from the pod certificate manager's report at each scrape: the
 * podCertificate projections per signer and state (not_yet_issued, denied, failed, fresh,
 * overdue_for_refresh, expired).
 */
export function registerPodCertificateStates(registry: Registry, report: () => { signerName: string; state: string; count: number }[]): void {
  new Gauge({
    name: "kubelet_podcertificate_states",
    help: "[ALPHA] Gauge vector reporting the number of pod certificate projected volume sources, faceted by signer_name and state.",
    labelNames: ["signer_name", "state"],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of report()) this.set({ signer_name: r.signerName, state: r.state }, r.count);
    },
  });
}
