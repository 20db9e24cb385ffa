// metrics-server (sigs.k8s.io/metrics-server, built by scripts/k8s/build-metrics-server.sh) for
// the cluster tests that need metrics.k8s.io: a process outside the cluster with the admin
// kubeconfig, registered as the v1beta1.metrics.k8s.io APIService (cluster.sh sets up the
// aggregation layer). The caller kills the returned process.
import { join } from "node:path";
import type { TestCluster } from "../../harness/cluster.ts";
import { REPO_ROOT } from "../../harness/images.ts";
import { freePort } from "../agent/bunlet.ts";
import { kubectlApply } from "./kubectl.ts";

export async function startMetricsServer(cluster: TestCluster, dir: string): Promise<ReturnType<typeof Bun.spawn>> {
  const address = cluster.env.API_ADDRESS!;
  const kubeconfig = cluster.adminKubeconfig;
  const build = Bun.spawnSync(["bash", join(REPO_ROOT, "scripts/k8s/build-metrics-server.sh")], { stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build-metrics-server.sh failed: ${build.stderr.toString()}`);
  const binary = build.stdout.toString().trim().split("\n").pop()!;
  const port = await freePort();
  const log = Bun.file(join(dir, "metrics-server.log"));
  const metricsServer = Bun.spawn(
    [
      binary,
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      `--bind-address=${address}`,
      `--secure-port=${port}`,
      `--cert-dir=${join(dir, "metrics-server-certs")}`,
      "--kubelet-insecure-tls",
      "--kubelet-preferred-address-types=InternalIP",
      "--kubelet-use-node-status-port",
      "--metric-resolution=15s",
      "--v=2",
    ],
    { stdout: log, stderr: log },
  );
  // An APIService backed by a Service whose endpoint is this process (--enable-aggregator-routing).
  const labels = { "kubernetes.io/service-name": "metrics-server" };
  for (const obj of [
    { apiVersion: "v1", kind: "Service", metadata: { name: "metrics-server", namespace: "kube-system" }, spec: { ports: [{ name: "https", port: 443, targetPort: port }] } },
    { apiVersion: "v1", kind: "Endpoints", metadata: { name: "metrics-server", namespace: "kube-system" }, subsets: [{ addresses: [{ ip: address }], ports: [{ name: "https", port }] }] },
    {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: "metrics-server-outside", namespace: "kube-system", labels: { ...labels, "endpointslice.kubernetes.io/managed-by": "bunlet-e2e" } },
      addressType: "IPv4",
      endpoints: [{ addresses: [address], conditions: { ready: true } }],
      ports: [{ name: "https", port, protocol: "TCP" }],
    },
    {
      apiVersion: "apiregistration.k8s.io/v1",
      kind: "APIService",
      metadata: { name: "v1beta1.metrics.k8s.io" },
      spec: { service: { name: "metrics-server", namespace: "kube-system", port: 443 }, group: "metrics.k8s.io", version: "v1beta1", insecureSkipTLSVerify: true, groupPriorityMinimum: 100, versionPriority: 100 },
    },
  ]) {
    await kubectlApply(cluster, obj);
  }
  return metricsServer;
}

/**
 * Takes the APIService and its Service away again: on a shared control plane an APIService whose
 * server is gone fails discovery, and the namespace controller then never finishes deleting a
 * namespace (NamespaceDeletionDiscoveryFailure).
 */
export async function unregisterMetricsServer(cluster: TestCluster): Promise<void> {
  await cluster.kubectl(["delete", "apiservice", "v1beta1.metrics.k8s.io", "--ignore-not-found"]);
  await cluster.kubectl(["-n", "kube-system", "delete", "service,endpoints", "metrics-server", "--ignore-not-found"]);
  await cluster.kubectl(["-n", "kube-system", "delete", "endpointslice", "metrics-server-outside", "--ignore-not-found"]);
}
