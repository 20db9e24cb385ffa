/**
 * Volumes and env from API objects on a bunlet node of a real cluster (scripts/cluster.sh), the
 * built dist/bunlet on a real containerd: a pod admitted with the default service account gets
 * the projected token, CA and namespace, and the token works against the apiserver as an
 * in-cluster client uses it (TokenReview, then a request with the pod's CA and token); configMap
 * and secret volumes and env see their data, a configMap update reaches the file within a resync,
 * a missing required key is CreateContainerConfigError with the kubelet's message, a downward API
 * volume follows a label change, emptyDir Memory and the secret volume are tmpfs, /etc/hosts has
 * the host aliases, and a Deployment with the default service account and a configMap volume runs.
 * What the container sees is read with CRI ExecSync inside it.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { boundTo, makePod } from "../../fixtures/pods.ts";
import { kubectlApply, kubectlJson as kubectlJsonOf } from "./kubectl.ts";
import { clusterNodeFixture } from "./fixture.ts";

const NODE = "bunlet-volumes";
const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";
const fx = clusterNodeFixture({
  name: "volumes",
  node: NODE,
  waitTimeoutMs: 180_000,
  // A configMap change reaches its volume at the pod's next resync.
  flags: () => ["--sync-frequency=10s"],
  // bunlet was killed with pods running: their tmpfs volumes are still mounted, as a killed
  // kubelet leaves them.
  beforeRemove: (dir) => {
    for (const point of mountsUnder(dir)) Bun.spawnSync(["umount", point]);
  },
});
const waitFor = fx.waitFor;

/** Mount points below dir on this host, deepest first. */
function mountsUnder(dir: string): string[] {
  const points = readFileSync("/proc/self/mountinfo", "utf8").split("\n").map((l) => l.split(" ")[4] ?? "");
  return points.filter((p) => p.startsWith(dir + "/")).sort((a, b) => b.length - a.length);
}

const kubectlJson = <T = any>(args: string[]) => kubectlJsonOf<T>(fx.cluster, args);
const apply = (obj: unknown) => kubectlApply(fx.cluster, obj);

async function runningContainer(podName: string): Promise<string | undefined> {
  const list = (await fx.cri.runtime.listContainers({})).containers;
  return list.find((c) => c.labels["io.kubernetes.pod.name"] === podName && c.state === 1)?.id;
}

/** Runs a command in the pod's running container; its stdout, or throws with its stderr. */
async function exec(podName: string, script: string): Promise<string> {
  const containerId = await runningContainer(podName);
  if (!containerId) throw new Error(`no running container of pod ${podName}`);
  const r = await fx.cri.runtime.execSync({ containerId, cmd: ["sh", "-c", script], timeout: 20n });
  const dec = new TextDecoder();
  if (r.exitCode !== 0) throw new Error(`exec in ${podName} exited ${r.exitCode}: ${dec.decode(r.stderr)}`);
  return dec.decode(r.stdout);
}

async function podRunning(name: string): Promise<boolean> {
  const p = await kubectlJson(["get", "pod", name]);
  return p.status?.phase === "Running" && p.status.containerStatuses?.every((c: any) => c.ready) === true;
}

/** The pod every volume source and env source of the API meets in (and its service account token). */
const mainPod = makePod({
  name: "all",
  namespace: fx.namespace,
  metadata: { labels: { app: "all", tier: "one" } },
  container: {
    name: "main",
    image: BUSYBOX_IMAGE,
    imagePullPolicy: "Never",
    command: ["sleep", "3600"],
    env: [
      { name: "GREETING", valueFrom: { configMapKeyRef: { name: "app-config", key: "greeting" } } },
      { name: "PASSWORD", valueFrom: { secretKeyRef: { name: "app-secret", key: "password" } } },
      { name: "MY_NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
      { name: "MEM_MI", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } },
    ],
    envFrom: [{ prefix: "CFG_", configMapRef: { name: "app-config" } }],
    resources: { limits: { memory: "64Mi" } },
    volumeMounts: [
      { name: "config", mountPath: "/etc/config" },
      { name: "secret", mountPath: "/etc/secret" },
      { name: "podinfo", mountPath: "/etc/podinfo" },
      { name: "cache", mountPath: "/cache" },
    ],
  },
  spec: {
    nodeName: NODE,
    terminationGracePeriodSeconds: 1,
    tolerations: [{ operator: "Exists" }],
    hostAliases: [{ ip: "10.1.2.3", hostnames: ["foo.local", "bar.local"] }],
    securityContext: { fsGroup: 2000 },
    volumes: [
      { name: "config", configMap: { name: "app-config", items: [{ key: "greeting", path: "conf/greeting.txt", mode: 0o600 }] } },
      { name: "secret", secret: { secretName: "app-secret", defaultMode: 0o400 } },
      { name: "podinfo", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
      { name: "cache", emptyDir: { medium: "Memory", sizeLimit: "16Mi" } },
    ],
  },
});

describe("volumes and env from the API", () => {
  test("the node is Ready and the cluster has published the default service account and kube-root-ca.crt", async () => {
    await waitFor("the Node Ready", async () => {
      const n = await kubectlJson(["get", "node", NODE]);
      return n.status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True");
    });
    await waitFor("the default ServiceAccount and kube-root-ca.crt", async () => {
      const sa = await fx.cluster.kubectl(["get", "serviceaccount", "default", "-o", "name"]);
      const cm = await fx.cluster.kubectl(["get", "configmap", "kube-root-ca.crt", "-o", "name"]);
      return sa.code === 0 && cm.code === 0;
    });
    await apply({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "app-config", namespace: fx.namespace }, data: { greeting: "hello", color: "blue" } });
    await apply({ apiVersion: "v1", kind: "Secret", metadata: { name: "app-secret", namespace: fx.namespace }, stringData: { password: "s3cret" } });
    await apply(mainPod);
    await waitFor("the pod Running and Ready", () => podRunning("all"));
  }, 300_000);

  test("the service account token is accepted by the apiserver, with the CA and namespace beside it", async () => {
    const token = await exec("all", `cat ${SA_DIR}/token`);
    const ca = await exec("all", `cat ${SA_DIR}/ca.crt`);
    expect(await exec("all", `cat ${SA_DIR}/namespace`)).toBe(fx.namespace);
    expect(ca).toBe(readFileSync(fx.cluster.serverCaFile, "utf8"));
    const review = await fx.cluster.kubectl(["create", "-o", "json", "-f", "-"], {
      stdin: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } }),
    });
    expect(review.code).toBe(0);
    const status = JSON.parse(review.stdout).status;
    expect(status.authenticated).toBe(true);
    expect(status.user.username).toBe(`system:serviceaccount:${fx.namespace}:default`);
    expect(status.user.extra?.["authentication.kubernetes.io/pod-name"]).toEqual(["all"]);
    // What an in-cluster client does with them: the CA to trust the apiserver, the token to be the pod.
    const res = await fetch(`${fx.cluster.server}/api/v1/namespaces/${fx.namespace}/pods/all`, { headers: { Authorization: `Bearer ${token}` }, tls: { ca } });
    // The default service account may not read pods, but the apiserver knows who asks.
    const body = (await res.json()) as { code?: number; message?: string };
    expect(res.status).toBe(403);
    expect(body.message).toContain(`User "system:serviceaccount:${fx.namespace}:default" cannot get resource "pods"`);
  }, 120_000);

  test("the in-cluster env: the kubernetes Service's host and port as service links", async () => {
    const svc = await kubectlJson(["get", "service", "kubernetes", "-n", "default"]);
    const env = await exec("all", "env");
    expect(env).toContain(`KUBERNETES_SERVICE_HOST=${svc.spec.clusterIP}\n`);
    expect(env).toContain("KUBERNETES_SERVICE_PORT=443\n");
    expect(env).toContain(`KUBERNETES_PORT_443_TCP=tcp://${svc.spec.clusterIP}:443\n`);
  }, 120_000);

  test("from inside the pod, the service-link address reaches the apiserver through the kubernetes Service", async () => {
    await waitFor("this cluster's kube-proxy to own the host's Service rules", () => fx.cluster.serviceRulesOwner() === fx.cluster.dir, 240_000).catch(() => {
      const owner = fx.cluster.serviceRulesOwner();
      const stop = existsSync(owner) ? `scripts/cluster.sh down ${owner}` : `its dir is gone, so end its processes (pgrep -af ${owner}/)`;
      throw new Error(`the host's Service rules still belong to the cluster in ${owner} after 4 minutes; stop it: ${stop}`);
    });
    // busybox has no TLS client: a plain HTTP request to the HTTPS port gets the apiserver's own
    // answer to that, which only the apiserver gives (Go's TLS server).
    // One attempt per exec: kube-proxy may write this cluster's rules a moment after taking the lock.
    const script = 'printf "GET /version HTTP/1.0\\r\\n\\r\\n" | nc -w 3 $KUBERNETES_SERVICE_HOST $KUBERNETES_SERVICE_PORT';
    const answer = await waitFor("an answer through the kubernetes Service", async () => {
      const out = await exec("all", script);
      return out.includes("HTTP/1.0 400") ? out : undefined;
    }, 120_000);
    expect(answer).toContain("Client sent an HTTP request to an HTTPS server");
  }, 400_000);

  test("configMap and secret volumes and env see their data, with the modes and fsGroup asked for", async () => {
    expect(await exec("all", "cat /etc/config/conf/greeting.txt")).toBe("hello");
    expect(await exec("all", "cat /etc/secret/password")).toBe("s3cret");
    // 0600 and 0400, plus group read from fsGroup (read-only volumes get 0440).
    expect((await exec("all", "stat -L -c '%a %g' /etc/config/conf/greeting.txt /etc/secret/password")).trim().split("\n")).toEqual(["640 2000", "440 2000"]);
    const env = await exec("all", "env");
    for (const line of ["GREETING=hello", "PASSWORD=s3cret", "CFG_greeting=hello", "CFG_color=blue", `MY_NODE=${NODE}`, "MEM_MI=64"]) {
      expect(env).toContain(`${line}\n`);
    }
  }, 120_000);

  test("the secret volume, the token volume and emptyDir medium Memory are tmpfs; the sizeLimit holds", async () => {
    const mounts = await exec("all", "cat /proc/mounts");
    const fsType = (path: string) => mounts.split("\n").find((l) => l.split(" ")[1] === path)?.split(" ")[2];
    expect(fsType("/etc/secret")).toBe("tmpfs");
    expect(fsType(SA_DIR)).toBe("tmpfs");
    expect(fsType("/cache")).toBe("tmpfs");
    expect(fsType("/etc/config")).not.toBe("tmpfs");
    const df = (await exec("all", "df -k /cache")).trim().split("\n")[1].split(/\s+/);
    expect(df[1]).toBe(String(16 * 1024));
  }, 120_000);

  test("/etc/hosts is the kubelet's, with the pod's IP and name and the host aliases", async () => {
    const ip = (await kubectlJson(["get", "pod", "all"])).status.podIP;
    const hosts = await exec("all", "cat /etc/hosts");
    expect(hosts).toStartWith("# Kubernetes-managed hosts file.\n");
    expect(hosts).toContain(`${ip}\tall\n`);
    expect(hosts).toContain("# Entries added by HostAliases.\n10.1.2.3\tfoo.local\tbar.local\n");
  }, 120_000);

  test("a configMap update reaches the file within a resync; a label change reaches the downward API file", async () => {
    expect(await exec("all", "cat /etc/podinfo/labels")).toBe('app="all"\ntier="one"');
    await apply({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "app-config", namespace: fx.namespace }, data: { greeting: "bonjour", color: "blue" } });
    expect((await fx.cluster.kubectl(["label", "pod", "all", "tier=two", "--overwrite"])).code).toBe(0);
    await waitFor("the new greeting in the file", async () => (await exec("all", "cat /etc/config/conf/greeting.txt")) === "bonjour", 120_000);
    await waitFor("the new label in the file", async () => (await exec("all", "cat /etc/podinfo/labels")) === 'app="all"\ntier="two"', 120_000);
    // The env of a running container does not change (as with the kubelet).
    expect(await exec("all", "echo $GREETING")).toBe("hello\n");
  }, 300_000);

  test("a missing required key is CreateContainerConfigError with the kubelet's message", async () => {
    await apply(
      makePod({
        name: "missing-key",
        namespace: fx.namespace,
        container: {
          name: "main",
          image: BUSYBOX_IMAGE,
          imagePullPolicy: "Never",
          command: ["sleep", "3600"],
          env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "app-config", key: "nope" } } }],
        },
        spec: boundTo(NODE),
      }),
    );
    const waiting = await waitFor("CreateContainerConfigError in the apiserver", async () => {
      const w = (await kubectlJson(["get", "pod", "missing-key"])).status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === "CreateContainerConfigError" ? w : undefined;
    });
    expect(waiting.message).toBe(`couldn't find key nope in ConfigMap ${fx.namespace}/app-config`);
  }, 180_000);

  test("a volume that cannot be set up is a FailedMount event and the pod waits in ContainerCreating", async () => {
    await apply(
      makePod({
        name: "no-config",
        namespace: fx.namespace,
        container: { name: "main", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command: ["sleep", "3600"], volumeMounts: [{ name: "c", mountPath: "/c" }] },
        spec: { ...boundTo(NODE), volumes: [{ name: "c", configMap: { name: "does-not-exist" } }] },
      }),
    );
    const event = await waitFor("a FailedMount event", async () => {
      const list = await kubectlJson(["get", "events", "--field-selector", "involvedObject.name=no-config,reason=FailedMount"]);
      return list.items[0];
    });
    expect(event.message).toBe('MountVolume.SetUp failed for volume "c" : configmap "does-not-exist" not found');
    expect(event.type).toBe("Warning");
    const p = await kubectlJson(["get", "pod", "no-config"]);
    expect(p.status.phase).toBe("Pending");
    expect(p.status.containerStatuses?.[0]?.state?.waiting?.reason).toBe("ContainerCreating");
    // Created, the configMap reaches the pod at its next retry.
    await apply({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "does-not-exist", namespace: fx.namespace }, data: { k: "v" } });
    await waitFor("the pod Running once the configMap exists", () => podRunning("no-config"));
    expect(await exec("no-config", "cat /c/k")).toBe("v");
  }, 300_000);

  test("a Deployment with the default service account and a configMap volume runs", async () => {
    await apply({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: fx.namespace },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            // Other files' nodes may be Ready on the shared control plane: the scheduler picks this file's.
            nodeSelector: { "kubernetes.io/hostname": NODE },
            tolerations: [{ operator: "Exists" }],
            terminationGracePeriodSeconds: 1,
            containers: [
              { name: "web", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command: ["sleep", "3600"], volumeMounts: [{ name: "config", mountPath: "/etc/config" }] },
            ],
            volumes: [{ name: "config", configMap: { name: "app-config" } }],
          },
        },
      },
    });
    await waitFor("the Deployment available with 2 replicas", async () => {
      const d = await kubectlJson(["get", "deployment", "web"]);
      return d.status?.availableReplicas === 2;
    }, 240_000);
    const pods = (await kubectlJson(["get", "pods", "-l", "app=web"])).items;
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      expect(p.spec.nodeName).toBe(NODE);
      expect(p.spec.volumes.some((v: any) => v.projected?.sources?.some((s: any) => s.serviceAccountToken))).toBe(true);
      expect(await exec(p.metadata.name, "cat /etc/config/color")).toBe("blue");
    }
  }, 300_000);

  test("a deleted pod's tmpfs mounts are gone from the host", async () => {
    const uid = (await kubectlJson(["get", "pod", "all"])).metadata.uid;
    const podDir = join(fx.dir, "state", "pods", uid);
    const hostMounts = () => mountsUnder(podDir).length;
    expect(hostMounts()).toBeGreaterThanOrEqual(3);
    expect((await fx.cluster.kubectl(["delete", "pod", "all", "--wait=false"])).code).toBe(0);
    await waitFor("the pod object gone", async () => (await fx.cluster.kubectl(["get", "pod", "all", "-o", "name"])).code !== 0);
    await waitFor("no mount left under the pod's directory", () => hostMounts() === 0);
  }, 180_000);
});
