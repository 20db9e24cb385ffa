// The metric-family parity with the kubelet, checked in CI: every family the upstream kubelet
// exposes (docs/metrics-kubelet-families.txt, captured from a real kubelet by
// scripts/metrics-parity.ts) is served by bunlet with the same type, help text and label names,
// or is listed with its reason in docs/observability.md ("Kubelet families bunlet does not
// serve"). A new kubelet family, a changed definition or a stale entry of the list fails here.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Registry, type Metric } from "prom-client";
import { parseFamilies, parseReference, type Family } from "../../../scripts/lib/metric-families.ts";
import { createMetrics, registerCertificateTtl, registerLogMetrics, registerVolumeCounts } from "../../../src/metrics/index.ts";
import { cadvisorMetrics } from "../../../src/stats/cadvisor-metrics.ts";
import { resourceMetrics } from "../../../src/stats/resource-metrics.ts";
import type { Summary } from "../../../src/stats/types.ts";

const repo = join(import.meta.dir, "../../..");
const reference = parseReference(readFileSync(join(repo, "docs/metrics-kubelet-families.txt"), "utf8"));

/** The "Kubelet families bunlet does not serve" table: endpoint → family → reason. */
function gaps(): Map<string, Map<string, string>> {
  const doc = readFileSync(join(repo, "docs/observability.md"), "utf8");
  const section = doc.slice(doc.indexOf("### Kubelet families bunlet does not serve"));
  const out = new Map<string, Map<string, string>>();
  for (const m of section.matchAll(/^\| `([^`]+)` \| `([^`]+)` \| (.+?) \|$/gm)) {
    if (!out.has(m[2]!)) out.set(m[2]!, new Map());
    out.get(m[2]!)!.set(m[1]!, m[3]!.trim());
  }
  return out;
}

/** A prom-client registry's families as definitions: every registered metric, observed or not. */
function registryFamilies(registry: Registry): Map<string, Family> {
  const out = new Map<string, Family>();
  for (const metric of registry.getMetricsAsArray() as unknown as (Metric & { name: string; help: string; labelNames?: string[] })[]) {
    const type = metric.constructor.name.toLowerCase();
    out.set(metric.name, { type, labels: [...(metric.labelNames ?? [])].sort(), help: metric.help });
  }
  return out;
}

function bunletFamilies(): Map<string, Map<string, Family>> {
  const metrics = createMetrics(new Registry(), new Registry());
  // Registered by the wiring once the certificates are known.
  registerCertificateTtl(metrics.registry, "client", () => undefined, () => 0);
  registerCertificateTtl(metrics.registry, "server", () => undefined, () => 0);
  registerLogMetrics(metrics.registry, async () => [], () => {});
  registerVolumeCounts(metrics.registry, () => []);
  const t = "2026-01-01T00:00:00Z";
  const summary: Summary = {
    node: { nodeName: "n", startTime: t, cpu: { time: t, usageCoreNanoSeconds: 1n }, memory: { time: t, workingSetBytes: 1n }, swap: { time: t, swapUsageBytes: 0n, swapAvailableBytes: 0n } },
    pods: [
      {
        podRef: { name: "p", namespace: "ns", uid: "u" },
        startTime: t,
        containers: [{ name: "c", startTime: t, cpu: { time: t, usageCoreNanoSeconds: 1n }, memory: { time: t, workingSetBytes: 1n }, swap: { time: t, swapUsageBytes: 1n, swapAvailableBytes: 1n } }],
        cpu: { time: t, usageCoreNanoSeconds: 1n },
        memory: { time: t, workingSetBytes: 1n },
        swap: { time: t, swapUsageBytes: 1n },
      },
    ],
  };
  const labels = { container: "c", id: "/k8s.io/c", image: "i", name: "c", namespace: "ns", pod: "p" };
  const cadvisor = cadvisorMetrics({
    nowMs: 1,
    error: false,
    containers: [
      {
        labels,
        creationMs: 1,
        startMs: 1,
        cpu: { timeMs: 1, usageCoreNanoSeconds: 1n },
        memory: { timeMs: 1, usageBytes: 1n, workingSetBytes: 1n, rssBytes: 1n },
        fs: [{ timeMs: 1, device: "/dev/d", usedBytes: 1n }],
        network: { timeMs: 1, interfaces: [{ name: "eth0", rxBytes: 1n, rxPackets: 1n, rxErrors: 0n, rxDropped: 0n, txBytes: 1n, txPackets: 1n, txErrors: 0n, txDropped: 0n }] },
        extras: {
          timeMs: 1,
          cpu: { userNs: 1n, systemNs: 1n },
          cfs: { periods: 1n, throttledPeriods: 1n, throttledNs: 1n },
          memory: { cache: 1n, mappedFile: 1n, swap: 1n, failcnt: 1n, maxUsage: 1n },
          spec: { cpuShares: 2n, cpuPeriod: 1n, cpuQuota: 1n, memoryLimit: 1n },
        },
      },
    ],
    machine: { timeMs: 1, numCores: 1, memoryBytes: 1n, machineId: "m", systemUuid: "s", bootId: "b" },
  });
  return new Map([
    ["/metrics", registryFamilies(metrics.registry)],
    ["/metrics/probes", registryFamilies(metrics.probeRegistry)],
    ["/metrics/resource", parseFamilies(resourceMetrics(summary))],
    ["/metrics/cadvisor", parseFamilies(cadvisor)],
  ]);
}

describe("metric families: the kubelet v1.37.2's, as bunlet serves them or says why not", () => {
  const ours = bunletFamilies();
  const notServed = gaps();

  test("the reference was captured for every endpoint", () => {
    expect([...reference.keys()]).toEqual(["/metrics", "/metrics/probes", "/metrics/resource", "/metrics/cadvisor"]);
  });

  for (const [path, kubelet] of reference) {
    test(`${path}: each kubelet family is served alike, or listed with its reason`, () => {
      const problems: string[] = [];
      const listed = notServed.get(path) ?? new Map<string, string>();
      for (const [name, want] of kubelet) {
        const have = ours.get(path)!.get(name);
        if (!have) {
          if (!listed.get(name)) problems.push(`${name}: not served and not listed in docs/observability.md with a reason`);
          continue;
        }
        if (listed.has(name)) problems.push(`${name}: served, but still listed as not served`);
        if (have.type !== want.type) problems.push(`${name}: type ${have.type}, the kubelet's is ${want.type}`);
        if (want.labels.length > 0 && have.labels.join() !== want.labels.join()) problems.push(`${name}: labels {${have.labels}}, the kubelet's are {${want.labels}}`);
        if (want.help && have.help !== want.help) problems.push(`${name}: help ${JSON.stringify(have.help)}, the kubelet's is ${JSON.stringify(want.help)}`);
      }
      for (const name of listed.keys()) if (!kubelet.has(name)) problems.push(`${name}: listed as not served, but the kubelet does not expose it on ${path}`);
      expect(problems).toEqual([]);
    });
  }
});
