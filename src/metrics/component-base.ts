/**
 * The families component-base's registry keeps about itself (component-base/metrics/registry.go):
 * registered_metrics_total counts the registered families by the stability level in their help
 * text (bunlet's own families and the process collector's, which carry none, are not counted, as
 * the kubelet's raw-registered collectors are not); disabled_metrics_total and hidden_metrics_total
 * are the families turned off by --disabled-metrics or hidden as deprecated: bunlet has neither
 * mechanism's subjects (no family is deprecated, no flag disables one), so both count 0 truly.
 */
import { Counter, type Registry } from "./prom.ts";

const levels = /^\[(ALPHA|BETA|STABLE|INTERNAL)\] /;

export function registerComponentBaseMetrics(registry: Registry): void {
  new Counter({
    name: "registered_metrics_total",
    help: "[BETA] The count of registered metrics broken by stability level and deprecation version.",
    labelNames: ["stability_level", "deprecated_version"],
    registers: [registry],
    collect() {
      this.reset();
      for (const metric of registry.getMetricsAsArray() as unknown as { help: string }[]) {
        const level = levels.exec(metric.help)?.[1];
        if (level) this.inc({ stability_level: level, deprecated_version: "" });
      }
    },
  });
  new Counter({ name: "disabled_metrics_total", help: "[BETA] The count of disabled metrics.", registers: [registry] });
  new Counter({ name: "hidden_metrics_total", help: "[BETA] The count of hidden metrics.", registers: [registry] });
}
