/**
 * Issue 26: the cluster's own tools on a bunlet node. The real metrics-server
 * (sigs.k8s.io/metrics-server, built by scripts/k8s/build-metrics-server.sh) runs outside the
 * cluster as a process with the admin kubeconfig, registered as the v1beta1.metrics.k8s.io
 * APIService (cluster.sh sets up the aggregation layer), and scrapes bunlet's /metrics/resource:
 * `kubectl top node` and `kubectl top pod` then show what /proc says, within 20 %, for a container
 * held at 0.2 cores by its CPU limit and one holding 64 MiB. And /configz and /logs/ answer
 * through the apiserver's node proxy (its client certificate authenticated and its
 * SubjectAccessReview made by bunlet), with the node log query enabled by the config file.
 * A HorizontalPodAutoscaler (kube-controller-manager's, reading metrics.k8s.io from the same
 * metrics-server) scales a Deployment on the node from 1 to 3 under a CPU load and back to 1.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { boundTo, makePod } from "../../fixtures/pods.ts";
import { clusterNodeFixture } from "./fixture.ts";
import { kubectlApply, kubectlJson } from "./kubectl.ts";
import { startMetricsServer, unregisterMetricsServer } from "./metrics-server.ts";

const NODE = "bunlet-observe";
const LOG_NAME = `bunlet-e2e-observe-${process.pid}`;
const LOG_FILE = `/var/log/${LOG_NAME}.log`;
let metricsServer: ReturnType<typeof Bun.spawn> | undefined;

const fx = clusterNodeFixture({
  name: "observe",
  node: NODE,
  waitTimeoutMs: 180_000,
  // The cluster's client CA: metrics-server and the apiserver present client certificates of it.
  flags: (f) => [`--config=${join(f.dir, "config.yaml")}`, `--client-ca-file=${f.cluster.clientCaFile}`],
  beforeStart: async (f) => {
    // The node log query is off by default, as in the kubelet.
    writeFileSync(join(f.dir, "config.yaml"), "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nenableSystemLogQuery: true\n");
    writeFileSync(LOG_FILE, "a line for the node log query\n");
    metricsServer = await startMetricsServer(f.cluster, f.dir);
  },
  beforeClose: (f) => unregisterMetricsServer(f.cluster),
  beforeRemove: () => {
    metricsServer?.kill("SIGKILL");
    rmSync(LOG_FILE, { force: true });
  },
});
const waitFor = fx.waitFor;
const apply = (obj: unknown) => kubectlApply(fx.cluster, obj);

/** Busy CPU time (user + system, in seconds) of a process, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident memory of a process and its children (the container's), from /proc/<pid>/status. */
function rssBytes(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024, 0);
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const task of readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean)) out.push(Number(task), ...childrenOf(Number(task)));
  return out;
}

async function containerPid(pod: string, container: string): Promise<number> {
  const c = (await fx.cri.runtime.listContainers({})).containers.find((x) => x.labels["io.kubernetes.pod.name"] === pod && x.metadata?.name === container && x.state === 1);
  if (!c) throw new Error(`no running container ${container} of ${pod}`);
  const status = await fx.cri.runtime.containerStatus({ containerId: c.id, verbose: true });
  return (JSON.parse(status.info.info ?? "{}") as { pid: number }).pid;
}

/** "200m" → 0.2, "1" → 1; "64Mi" → bytes. */
const cores = (q: string) => (q.endsWith("m") ? Number(q.slice(0, -1)) / 1000 : Number(q));
const bytes = (q: string) => Number(/^(\d+)(Ki|Mi|Gi)?$/.exec(q)![1]) * { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, "": 1 }[/^(\d+)(Ki|Mi|Gi)?$/.exec(q)![2] ?? ""]!;
const within = (actual: number, expected: number, share = 0.2) => Math.abs(actual - expected) <= share * expected;

test("kubectl top pod: the containers' CPU and memory within 20 % of /proc", async () => {
  await apply(
    makePod({
      name: "burner",
      namespace: fx.namespace,
      spec: {
        ...boundTo(NODE),
        containers: [
          // A busy loop the CFS quota holds at 0.2 cores.
          { name: "cpu", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command: ["sh", "-c", "while :; do :; done"], resources: { limits: { cpu: "200m" } } },
          // 64 MiB held by dd: one read from /dev/zero fills its buffer, and its write then blocks
          // for good on the pipe to a sleep that never reads.
          { name: "mem", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command: ["sh", "-c", "dd if=/dev/zero bs=64M count=1 | sleep 100000"] },
        ],
      },
    }),
  );
  // dd's buffer is filled in one system call, not step by step as a string an awk builds (which
  // took minutes on a loaded CI machine). kubectl top is read only once metrics-server has scraped
  // twice since (--metric-resolution=15s), so its sample is of the whole 64 MiB.
  const memPid = await waitFor(
    "the memory container holding 64 MiB",
    async () => {
      const pid = await containerPid("burner", "mem");
      const resident = rssBytes([pid, ...childrenOf(pid)]);
      if (resident < 64 * 1024 * 1024) throw new Error(`its processes hold ${resident} bytes`);
      return pid;
    },
    240_000,
  );
  await Bun.sleep(32_000);
  const top = await waitFor(
    "kubectl top pod burner --containers",
    async () => {
      const r = await fx.cluster.kubectl(["top", "pod", "burner", "--containers", "--no-headers"]);
      const rows = r.code === 0 ? r.stdout.trim().split("\n").map((l) => l.trim().split(/\s+/)) : [];
      if (rows.length !== 2) return undefined;
      return Object.fromEntries(rows.map(([, name, cpu, mem]) => [name!, { cpu: cores(cpu!), memory: bytes(mem!) }])) as Record<string, { cpu: number; memory: number }>;
    },
    120_000,
  );
  // /proc over 15 s, metrics-server's window: the loop's busy share, and the memory container's resident set.
  const cpuPid = await containerPid("burner", "cpu");
  const before = cpuSeconds(cpuPid);
  const t0 = performance.now();
  await Bun.sleep(15_000);
  const procCores = (cpuSeconds(cpuPid) - before) / ((performance.now() - t0) / 1000);
  const procMemory = rssBytes([memPid, ...childrenOf(memPid)]);
  console.log(`kubectl top pod: ${JSON.stringify(top)}; /proc: cpu ${procCores.toFixed(3)} cores, mem ${procMemory} bytes`);
  // The quota holds the loop at 0.2 cores at most (less when the machine is busy).
  expect(procCores).toBeGreaterThan(0.05);
  expect(procCores).toBeLessThan(0.2 * 1.1);
  expect(within(top.cpu!.cpu, procCores)).toBe(true);
  expect(within(top.mem!.memory, procMemory)).toBe(true);
  expect(top.mem!.memory).toBeGreaterThan(60 * 1024 * 1024);
}, 420_000);

test("kubectl top node: the node's CPU and memory working set within 20 % of /proc", async () => {
  // The node's CPU moves with everything else on the machine: /proc/stat sampled each second over
  // 45 s, and kubectl top's figure must be within 20 % of the rate over some 15 s window of it.
  const busy = () => {
    const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) / 100;
  };
  const samples: { t: number; busy: number }[] = [];
  let top: { cpu: number; memory: number } | undefined;
  for (let i = 0; i < 45; i++) {
    samples.push({ t: performance.now() / 1000, busy: busy() });
    if (i === 40) {
      const r = await fx.cluster.kubectl(["top", "node", NODE, "--no-headers"]);
      expect(r.code).toBe(0);
      const [, cpu, , mem] = r.stdout.trim().split(/\s+/);
      top = { cpu: cores(cpu!), memory: bytes(mem!) };
    }
    await Bun.sleep(1000);
  }
  const rates: number[] = [];
  for (let i = 0; i + 15 < samples.length; i++) rates.push((samples[i + 15]!.busy - samples[i]!.busy) / (samples[i + 15]!.t - samples[i]!.t));
  const meminfo = Object.fromEntries(readFileSync("/proc/meminfo", "utf8").split("\n").map((l) => [l.split(":")[0], Number(/(\d+) kB/.exec(l)?.[1] ?? 0) * 1024]));
  const workingSet = meminfo.MemTotal! - meminfo.MemFree! - meminfo["Inactive(file)"]!;
  console.log(`kubectl top node: ${JSON.stringify(top)}; /proc: cpu ${Math.min(...rates).toFixed(3)}..${Math.max(...rates).toFixed(3)} cores, working set ${workingSet}`);
  expect(top!.cpu).toBeGreaterThanOrEqual(Math.min(...rates) * 0.8);
  expect(top!.cpu).toBeLessThanOrEqual(Math.max(...rates) * 1.2);
  expect(within(top!.memory, workingSet)).toBe(true);
}, 120_000);

interface HpaStatus {
  desiredReplicas?: number;
  currentReplicas?: number;
  currentMetrics?: { resource?: { current?: { averageUtilization?: number } } }[];
  conditions?: { type: string; status: string; reason: string; message: string }[];
}
interface ScaledPod {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName: string };
  status: { phase: string; conditions?: { type: string; status: string }[] };
}

test("an HPA scales a Deployment on the node from 1 to 3 under CPU load, and back to 1", async () => {
  // The load switch: a host directory every replica mounts; while it holds `on`, each replica
  // burns what its limit lets it (200m against a 100m request: 200 % against a 25 % target). The
  // low target holds on a crowded machine too, where the pods' cgroup may get a fraction of their
  // limit (CI's cluster lane runs four test processes and three control planes beside it): 3
  // replicas stay from 28m each. Idle, the loop forks a `sleep 5`: 2 % beside three busy
  // processes, where a `sleep 1` took 7 %, too near the target for the way down.
  const switchDir = join(fx.dir, "load");
  mkdirSync(switchDir, { recursive: true });
  const loop = "while :; do if [ -e /load/on ]; then i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; else sleep 5; fi; done";
  await apply({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "scaled", namespace: fx.namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "scaled" } },
      template: {
        metadata: { labels: { app: "scaled" } },
        spec: {
          // Other files' nodes may be Ready on the shared control plane: the scheduler picks this file's.
          nodeSelector: { "kubernetes.io/hostname": NODE },
          tolerations: [{ operator: "Exists" }],
          terminationGracePeriodSeconds: 1,
          automountServiceAccountToken: false,
          containers: [
            {
              name: "load",
              image: BUSYBOX_IMAGE,
              imagePullPolicy: "Never",
              command: ["sh", "-c", loop],
              resources: { requests: { cpu: "100m" }, limits: { cpu: "200m" } },
              volumeMounts: [{ name: "switch", mountPath: "/load" }],
            },
          ],
          volumes: [{ name: "switch", hostPath: { path: switchDir, type: "Directory" } }],
        },
      },
    },
  });
  await apply({
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "scaled", namespace: fx.namespace },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "scaled" },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 25 } } }],
      // No waiting on the way down (the default window is 5 minutes).
      behavior: { scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: "Percent", value: 100, periodSeconds: 5 }] } },
    },
  });
  const replicas = async () => (await kubectlJson(fx.cluster, ["get", "deployment", "scaled"])).status?.readyReplicas ?? 0;
  // The HPA's status once it is the awaited one; until then its state and the replicas' are
  // thrown, so that a timeout says what the autoscaler saw and decided (its conditions) and where
  // each replica was.
  const hpaState = async (awaited: (status: HpaStatus, ready: number) => boolean) => {
    const status: HpaStatus = (await kubectlJson(fx.cluster, ["get", "hpa", "scaled"])).status ?? {};
    const ready = await replicas();
    if (awaited(status, ready)) return status;
    const pods = ((await kubectlJson(fx.cluster, ["get", "pods", "-l", "app=scaled"])).items as ScaledPod[]).map(
      (p) => `${p.metadata.name} ${p.status.phase}${p.metadata.deletionTimestamp ? " deleting" : ""} ready=${p.status.conditions?.find((c) => c.type === "Ready")?.status}`,
    );
    const conditions = (status.conditions ?? []).map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`);
    throw new Error(`HPA desired ${status.desiredReplicas}, current ${status.currentReplicas}, utilization ${status.currentMetrics?.[0]?.resource?.current?.averageUtilization}%; ${ready} ready; pods [${pods.join("; ")}]; ${conditions.join("; ")}`);
  };
  const idle = (await waitFor("the HPA reading the idle replica's CPU", () => hpaState((s) => s.currentMetrics?.[0]?.resource?.current?.averageUtilization !== undefined), 180_000))
    .currentMetrics![0]!.resource!.current!.averageUtilization;
  expect(await replicas()).toBe(1);
  writeFileSync(join(switchDir, "on"), "");
  const loadOn = performance.now();
  // 17-47 s here (beside three busy processes, in a whole CI run); on CI's machine it once ran out
  // 240 s with a 50 % target (what the HPA saw was not kept then; the error says it now).
  await waitFor("3 ready replicas under load", () => hpaState((s, ready) => ready === 3 && s.desiredReplicas === 3), 360_000);
  const scaledUp = performance.now();
  const pods = ((await kubectlJson(fx.cluster, ["get", "pods", "-l", "app=scaled"])).items as ScaledPod[]).filter((p) => !p.metadata.deletionTimestamp);
  expect(pods.map((p) => p.spec.nodeName)).toEqual([NODE, NODE, NODE]);
  rmSync(join(switchDir, "on"));
  await waitFor("back to 1 replica once idle", () => hpaState((s, ready) => s.desiredReplicas === 1 && ready === 1), 240_000);
  console.log(`HPA: idle ${idle} %, 3 ready replicas ${((scaledUp - loadOn) / 1000).toFixed(0)} s after the load, back to 1 ${((performance.now() - scaledUp) / 1000).toFixed(0)} s after it stopped`);
  await fx.cluster.kubectl(["delete", "hpa,deployment", "scaled", "--wait=false"]);
}, 900_000);

test("/configz and /logs/ through the apiserver's node proxy", async () => {
  const configz = await fx.cluster.kubectl(["get", "--raw", `/api/v1/nodes/${NODE}/proxy/configz`]);
  expect(configz.code).toBe(0);
  const c = JSON.parse(configz.stdout).kubeletconfig;
  expect(c).toMatchObject({ kind: "KubeletConfiguration", apiVersion: "kubelet.config.k8s.io/v1beta1", enableSystemLogQuery: true, authorization: { mode: "Webhook" } });
  expect(c.port).toBe(fx.bunlet!.kubeletPort);
  const listing = await fx.cluster.kubectl(["get", "--raw", `/api/v1/nodes/${NODE}/proxy/logs/`]);
  expect(listing.stdout).toContain(`<a href="${LOG_NAME}.log">${LOG_NAME}.log</a>`);
  const query = await fx.cluster.kubectl(["get", "--raw", `/api/v1/nodes/${NODE}/proxy/logs/?query=${LOG_NAME}`]);
  expect(query.stdout).toBe("a line for the node log query\n");
  const running = await fx.cluster.kubectl(["get", "--raw", `/api/v1/nodes/${NODE}/proxy/runningpods/`]);
  expect(JSON.parse(running.stdout).items.map((p: { metadata: { name: string } }) => p.metadata.name)).toContain("burner");
});
