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
