/**
 * Issue 26: Prometheus on a bunlet node, and the node's declared features. Debian's prometheus
 * (scripts/install-deps.sh) runs as a process of the test, on a temp storage directory, with the
 * kubelet scrape jobs kube-prometheus uses: the node's InternalIP and kubelet port, HTTPS to the
 * kubelet API without verifying its self-signed certificate, a ServiceAccount's bearer token
 * (allowed nodes/metrics by RBAC, checked by bunlet with a TokenReview and a SubjectAccessReview),
 * and /metrics, /metrics/cadvisor and /metrics/resource, every 2 s. Every target is up, a
 * dashboard query names the test's pods, and the kubelet families the kubernetes-mixin reads carry
 * real values. The Node declares no feature (bunlet implements none of the kubelet's registry),
 * so the scheduler keeps a pod needing one off the node, and bunlet rejects one bound to it.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { freePort } from "../agent/bunlet.ts";
import { clusterNodeFixture } from "./fixture.ts";
import { kubectlApply, kubectlJson } from "./kubectl.ts";

const NODE = "bunlet-prom";
let prometheus: ReturnType<typeof Bun.spawn> | undefined;
let promPort = 0;

const fx = clusterNodeFixture({
  name: "prom",
  node: NODE,
  waitTimeoutMs: 180_000,
  // bunlet is killed with the pods running: their tmpfs volumes stay mounted, as a killed kubelet leaves them.
  beforeRemove: (dir) => {
    prometheus?.kill("SIGKILL");
    const mounts = readFileSync("/proc/self/mountinfo", "utf8").split("\n").map((l) => l.split(" ")[4] ?? "");
    for (const point of mounts.filter((m) => m.startsWith(`${dir}/`)).reverse()) Bun.spawnSync(["umount", point]);
  },
});
const waitFor = fx.waitFor;
const apply = (obj: unknown) => kubectlApply(fx.cluster, obj);

/**
 * kube-prometheus's kubelet jobs, one per path. Debian's Prometheus is built without Kubernetes
 * discovery, so the node's address is what discovery would find: its InternalIP and the kubelet
 * port it reports (status.daemonEndpoints), read from the apiserver.
 */
function scrapeConfig(target: string, tokenFile: string) {
  const job = (name: string, path: string) => ({
    job_name: name,
    scheme: "https",
    metrics_path: path,
    static_configs: [{ targets: [target], labels: { node: NODE } }],
    tls_config: { insecure_skip_verify: true },
    authorization: { credentials_file: tokenFile },
  });
  return {
    global: { scrape_interval: "2s", scrape_timeout: "2s", evaluation_interval: "2s" },
    scrape_configs: [job("kubelet", "/metrics"), job("kubelet-cadvisor", "/metrics/cadvisor"), job("kubelet-resource", "/metrics/resource")],
  };
}

async function query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const res = await fetch(`http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as { status: string; data?: { result: { metric: Record<string, string>; value: [number, string] }[] }; error?: string };
  if (body.status !== "success") throw new Error(`query ${promql}: ${body.error}`);
  return body.data!.result;
}

const value = async (promql: string) => Number((await query(promql))[0]?.value[1] ?? Number.NaN);

test("Prometheus scrapes /metrics, /metrics/cadvisor and /metrics/resource with a bearer token: every target up", async () => {
  // A ServiceAccount allowed what a Prometheus needs on kubelets (nodes/metrics), and its token.
  await apply({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "prometheus", namespace: fx.namespace } });
  await apply({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "prometheus" }, rules: [{ apiGroups: [""], resources: ["nodes/metrics"], verbs: ["get"] }] });
  await apply({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "prometheus" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "prometheus" },
    subjects: [{ kind: "ServiceAccount", name: "prometheus", namespace: fx.namespace }],
  });
  const token = await fx.cluster.kubectl(["create", "token", "prometheus", "--duration=1h"]);
  expect(token.code).toBe(0);
  const dir = join(fx.dir, "prometheus");
  mkdirSync(join(dir, "data"), { recursive: true });
  writeFileSync(join(dir, "token"), token.stdout.trim());
  const node = await kubectlJson(fx.cluster, ["get", "node", NODE]);
  const address = node.status.addresses.find((a: { type: string }) => a.type === "InternalIP").address;
  writeFileSync(join(dir, "prometheus.yml"), stringify(scrapeConfig(`${address}:${node.status.daemonEndpoints.kubeletEndpoint.Port}`, join(dir, "token"))));
  // A pod whose CPU the dashboards should see.
  await apply(
    makePod({
      name: "spinner",
      namespace: fx.namespace,
      container: { name: "spin", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command: ["sh", "-c", "while :; do :; done"], resources: { limits: { cpu: "100m" } } },
      spec: {
        // Other files' nodes may be Ready on the shared control plane: the scheduler picks this file's.
        nodeSelector: { "kubernetes.io/hostname": NODE },
        tolerations: [{ operator: "Exists" }],
        terminationGracePeriodSeconds: 1,
      },
    }),
  );
  promPort = await freePort();
  const log = Bun.file(join(dir, "prometheus.log"));
  prometheus = Bun.spawn(
    ["prometheus", `--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${promPort}`, "--log.level=warn"],
    { stdout: log, stderr: log },
  );
  const up = await waitFor(
    "the three kubelet targets up",
    async () => {
      const r = await query("up").catch(() => []);
      const jobs = Object.fromEntries(r.map((s) => [s.metric.job!, s.value[1]]));
      return jobs.kubelet === "1" && jobs["kubelet-cadvisor"] === "1" && jobs["kubelet-resource"] === "1" ? r : undefined;
    },
    120_000,
  );
  expect(up.map((s) => s.metric.node)).toEqual([NODE, NODE, NODE]);
}, 300_000);

test("a dashboard query: CPU by pod from the cAdvisor job names the running pods", async () => {
  const pods = await waitFor(
    "sum by (pod) (rate(container_cpu_usage_seconds_total[1m])) with the spinner",
    async () => {
      const r = await query('sum by (pod) (rate(container_cpu_usage_seconds_total{job="kubelet-cadvisor",container!="",image!=""}[1m]))');
      return r.some((s) => s.metric.pod === "spinner" && Number(s.value[1]) > 0.02) ? r : undefined;
    },
    120_000,
  );
  const spinner = Number(pods.find((s) => s.metric.pod === "spinner")!.value[1]);
  // The CFS quota holds it at 0.1 cores.
  expect(spinner).toBeLessThan(0.13);
  // The mixin's CPUThrottlingHigh ratio: the spinner is throttled in most periods.
  const throttled = await value(
    'sum(increase(container_cpu_cfs_throttled_periods_total{job="kubelet-cadvisor",container="spin"}[1m])) / sum(increase(container_cpu_cfs_periods_total{job="kubelet-cadvisor",container="spin"}[1m]))',
  );
  expect(throttled).toBeGreaterThan(0.25);
  expect(await value('container_spec_cpu_quota{job="kubelet-cadvisor",container="spin"}')).toBe(10000);
  // The same pod from /metrics/resource, metrics-server's source.
  // Its samples carry the stats' own timestamps; the rate settles once the window holds a few.
  await waitFor("the spinner's CPU from the resource job", async () => (await value('sum(rate(container_cpu_usage_seconds_total{job="kubelet-resource",pod="spinner"}[1m]))')) > 0.05, 60_000);
}, 180_000);

test("the kubelet families the kubernetes-mixin reads carry real values", async () => {
  // The pod's start, observed through bunlet's own watch, and its status sync.
  expect(await value('kubelet_pod_start_sli_duration_seconds_count{job="kubelet"}')).toBeGreaterThanOrEqual(1);
  expect(await value('kubelet_pod_start_sli_duration_seconds_sum{job="kubelet"}')).toBeGreaterThan(0);
  expect(await value('kubelet_pod_status_sync_duration_seconds_count{job="kubelet"}')).toBeGreaterThanOrEqual(1);
  // The mixin's node join, running pods and PLEG.
  expect(await query('kubelet_node_name{job="kubelet"}')).toEqual([expect.objectContaining({ metric: expect.objectContaining({ node: NODE }), value: [expect.any(Number), "1"] })]);
  expect(await value('kubelet_running_pods{job="kubelet"}')).toBeGreaterThanOrEqual(1);
  expect(await value('histogram_quantile(0.99, sum(rate(kubelet_pleg_relist_duration_seconds_bucket{job="kubelet"}[1m])) by (le))')).toBeGreaterThan(0);
  // Prometheus's own scrapes, counted by the kubelet API's request metrics.
  expect(await value('kubelet_http_requests_total{job="kubelet",server_type="readwrite",path="metrics/cadvisor",method="GET"}')).toBeGreaterThan(1);
  // The serving certificate (made for a year) and the node kubeconfig's client certificate.
  expect(await value('kubelet_certificate_manager_server_ttl_seconds{job="kubelet"}')).toBeGreaterThan(86400 * 300);
  expect(await value('kubelet_certificate_manager_client_ttl_seconds{job="kubelet"}')).toBeGreaterThan(86400);
  // The spinner's service account token: a projected volume set up.
  expect(await value('storage_operation_duration_seconds_count{job="kubelet",volume_plugin="kubernetes.io/projected",operation_name="volume_mount",status="success"}')).toBeGreaterThanOrEqual(1);
  expect(await value('kubelet_node_startup_registration_duration_seconds{job="kubelet"}')).toBeGreaterThan(0);
  expect(await value('kubelet_working_pods{job="kubelet",lifecycle="sync",config="desired",static=""}')).toBeGreaterThanOrEqual(1);
  expect(await value('rate(kubelet_runtime_operations_total{job="kubelet",operation_type="list_podsandbox"}[1m])')).toBeGreaterThan(0);
}, 60_000);

test("the Node declares no feature; a pod needing one is not scheduled, and one bound to the node is rejected", async () => {
  const node = await kubectlJson(fx.cluster, ["get", "node", NODE]);
  expect(node.status.declaredFeatures).toBeUndefined();
  const needsRestartAll = (name: string, nodeName?: string) =>
    makePod({
      name,
      namespace: fx.namespace,
      container: {
        name: "main",
        image: BUSYBOX_IMAGE,
        imagePullPolicy: "Never",
        command: ["sleep", "3600"],
        restartPolicy: "Never",
        restartPolicyRules: [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [42] } }],
      },
      spec: { ...(nodeName && { nodeName }), tolerations: [{ operator: "Exists" }], terminationGracePeriodSeconds: 1 },
    });
  await apply(needsRestartAll("restart-all"));
  const event = await waitFor("the scheduler's FailedScheduling event", async () => {
    const events = (await kubectlJson(fx.cluster, ["get", "events", "--field-selector", "involvedObject.name=restart-all,reason=FailedScheduling"])).items as { message: string }[];
    return events[0]?.message;
  });
  expect(event).toContain("node(s) didn't match Pod's required features");
  await apply(needsRestartAll("restart-all-bound", NODE));
  const status = await waitFor("the bound pod rejected", async () => {
    const p = await kubectlJson(fx.cluster, ["get", "pod", "restart-all-bound"]);
    return p.status?.phase === "Failed" ? p.status : undefined;
  });
  expect(status).toMatchObject({ reason: "PodFeatureUnsupported", message: "Pod was rejected: Pod requires node features that are not available: RestartAllContainersOnContainerExits" });
}, 180_000);
