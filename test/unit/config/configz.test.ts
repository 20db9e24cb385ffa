import { expect, test } from "bun:test";
import { kubeletConfigz, parseArgs } from "../../../src/config/index.ts";
import { goDuration } from "../../../src/config/configz.ts";

test("durations are written as Go's time.Duration.String()", () => {
  expect([0, 300, 1000, 1500, 10_000, 60_000, 90_000, 300_000, 4 * 3_600_000, 3_661_000].map(goDuration)).toEqual([
    "0s",
    "300ms",
    "1s",
    "1.5s",
    "10s",
    "1m0s",
    "1m30s",
    "5m0s",
    "4h0m0s",
    "1h1m1s",
  ]);
});

test("/configz: the effective configuration in KubeletConfiguration v1beta1's names and forms", () => {
  const { config } = parseArgs(["--sync-frequency=30s", "--max-pods=50", "--node-status-update-frequency=20s", "--pod-manifest-path=/etc/kubernetes/manifests"]) as { config: Parameters<typeof kubeletConfigz>[0] };
  const { kubeletconfig: c } = kubeletConfigz(config);
  expect(c).toMatchObject({
    kind: "KubeletConfiguration",
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    staticPodPath: "/etc/kubernetes/manifests",
    syncFrequency: "30s",
    maxPods: 50,
    nodeStatusUpdateFrequency: "20s",
    port: 10250,
    authentication: { anonymous: { enabled: false }, webhook: { enabled: true, cacheTTL: "2m0s" } },
    authorization: { mode: "Webhook", webhook: { cacheAuthorizedTTL: "5m0s", cacheUnauthorizedTTL: "30s" } },
    containerLogMaxSize: "10Mi",
    enableSystemLogHandler: true,
    enableSystemLogQuery: false,
  });
  // Every key is a KubeletConfiguration field: none of bunlet's own settings leak in.
  for (const key of ["containerdPath", "cniBridgeName", "evictStaticPods", "podLogsMaxTotalSize", "syncFrequencyMs"]) expect(c).not.toHaveProperty(key);
});
