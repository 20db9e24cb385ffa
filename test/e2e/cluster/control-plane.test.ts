/**
 * The control plane the cluster tests run against (scripts/cluster.sh through
 * test/harness/cluster.ts): the upstream kube-apiserver, kube-controller-manager, kube-scheduler
 * and kube-proxy built from the Go module, etcd from Debian. It answers /readyz, authenticates a
 * node by its certificate and authorizes it as a node, runs its controllers and its scheduler,
 * routes the kubernetes Service from the host and from a pod (all on the test process's shared
 * control plane, which the other cluster files use), and `down` leaves nothing running (on a
 * control plane of this file's own: the shared one must stay up).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { pidsNaming } from "../../harness/cleanup.ts";
import { startTestCluster, type TestCluster } from "../../harness/cluster.ts";
import { closeNamespace, sharedTestCluster } from "../../harness/shared-cluster.ts";
import { waitFor } from "../../harness/wait.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { containerConfig, sandboxConfig } from "../../fake-cri/fixtures.ts";

const NODE = "e2e-node";
// The namespace the controller-manager test creates, deleted with the nodes afterwards.
const NAMESPACE = "e2e-control-plane";
let cluster: TestCluster;
let nodeKubeconfig = "";

beforeAll(async () => {
  cluster = await sharedTestCluster();
  nodeKubeconfig = await cluster.nodeKubeconfig(NODE);
}, 300_000);

afterAll(async () => {
  if (cluster) await closeNamespace(cluster, NAMESPACE, [NODE, "other-node"]);
}, 180_000);

/** kubectl's stdout; fails with its stderr when it exits non-zero. */
async function kubectl(args: string[], opts: { kubeconfig?: string; stdin?: string } = {}): Promise<string> {
  const r = await cluster.kubectl(args, opts);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** Polls every 250 ms until check answers (not undefined or false); an error counts as "not yet". */
const until = <T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> => waitFor(what, check, { timeoutMs, intervalMs: 250 });

function nodeObject(name: string) {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name } },
  };
}

describe("scripts/cluster.sh control plane", () => {
  test("/readyz answers through kubectl; the apiserver is the pinned release", async () => {
    expect((await kubectl(["get", "--raw", "/readyz"])).trim()).toBe("ok");
    const version = JSON.parse(await kubectl(["version", "-o", "json"]));
    expect(version.serverVersion.gitVersion).toBe(version.clientVersion.gitVersion);
    expect(version.serverVersion.gitVersion).toMatch(/^v1\.\d+\.\d+$/);
    expect(cluster.server).toBe(`https://${cluster.env.API_ADDRESS}:${cluster.env.APISERVER_PORT}`);
    expect(cluster.env.API_ADDRESS).not.toMatch(/^127\./);
  });

  test("a node kubeconfig authenticates as system:node:<name> in group system:nodes", async () => {
    const review = JSON.parse(await kubectl(["auth", "whoami", "-o", "json"], { kubeconfig: nodeKubeconfig }));
    expect(review.status.userInfo.username).toBe(`system:node:${NODE}`);
    expect(review.status.userInfo.groups).toEqual(expect.arrayContaining(["system:nodes", "system:authenticated"]));
  });

  test("Node authorization and NodeRestriction: a node registers itself but may not change another node", async () => {
    await kubectl(["create", "-f", "-"], { kubeconfig: nodeKubeconfig, stdin: JSON.stringify(nodeObject(NODE)) });
    await kubectl(["create", "-f", "-"], { stdin: JSON.stringify(nodeObject("other-node")) });
    const denied = await cluster.kubectl(["label", "node", "other-node", "hacked=true"], { kubeconfig: nodeKubeconfig });
    expect(denied.code).not.toBe(0);
    // The Node authorizer refuses even the read kubectl starts with (NodeRestriction would refuse the write).
    expect(denied.stderr).toContain("Forbidden");
    expect(denied.stderr).toContain(`User "system:node:${NODE}"`);
    expect(denied.stderr).toContain("other-node");
    // The controller-manager's node IPAM gives each node a pod CIDR from CLUSTER_CIDR.
    const cidr = await until("a podCIDR on the node", async () => (await kubectl(["get", "node", NODE, "-o", "jsonpath={.spec.podCIDR}"])) || undefined);
    expect(cidr).toMatch(/\/24$/);
    await kubectl(["delete", "node", "other-node"]);
  });

  test("the controller-manager gives a new namespace its default ServiceAccount and kube-root-ca.crt", async () => {
    await kubectl(["create", "namespace", NAMESPACE]);
    await until(`ServiceAccount ${NAMESPACE}/default`, () => kubectl(["-n", NAMESPACE, "get", "serviceaccount", "default", "-o", "name"]));
    const ca = await until(`ConfigMap ${NAMESPACE}/kube-root-ca.crt`, () => kubectl(["-n", NAMESPACE, "get", "configmap", "kube-root-ca.crt", "-o", "jsonpath={.data.ca\\.crt}"]));
    expect(ca).toContain("BEGIN CERTIFICATE");
    expect(ca.trim()).toBe((await Bun.file(cluster.serverCaFile).text()).trim());
  });

  test("the scheduler binds a pod to a Ready node", async () => {
    const now = new Date().toISOString();
    const status = {
      status: {
        conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "e2e", lastHeartbeatTime: now, lastTransitionTime: now }],
        capacity: { cpu: "2", memory: "4Gi", pods: "110" },
        allocatable: { cpu: "2", memory: "4Gi", pods: "110" },
      },
    };
    // (kubectl patch GETs nodes/status first, which the Node authorizer does not grant a node.)
    await kubectl(["patch", "node", NODE, "--subresource=status", "--type=merge", "-p", JSON.stringify(status)]);
    const pod = makePod({
      name: "scheduled",
      namespace: NAMESPACE,
      container: { name: "main", image: BUSYBOX_IMAGE },
      // Other files' nodes may be Ready on the shared control plane: the scheduler picks this one.
      spec: { nodeSelector: { "kubernetes.io/hostname": NODE } },
    });
    await kubectl(["create", "-f", "-"], { stdin: JSON.stringify(pod) });
    const node = await until("the pod bound to a node", async () => (await kubectl(["-n", NAMESPACE, "get", "pod", "scheduled", "-o", "jsonpath={.spec.nodeName}"])) || undefined);
    expect(node).toBe(NODE);
  });

  describe("kube-proxy (iptables mode) routes the kubernetes Service", () => {
    let ctd: TestContainerd | undefined;
    let cri: CriClient | undefined;

    beforeAll(async () => {
      // One kube-proxy per host (see scripts/cluster.sh): another cluster's (a parallel test run's)
      // must be down first. CI runs one suite, so there it is ours from the start.
      await until("this cluster's kube-proxy to own the host's Service rules", async () => cluster.serviceRulesOwner() === cluster.dir, 240_000).catch(
        () => {
          const owner = cluster.serviceRulesOwner();
          const stop = existsSync(owner) ? `scripts/cluster.sh down ${owner}` : `its dir is gone, so end its processes (pgrep -af ${owner}/)`;
          throw new Error(`the host's Service rules still belong to the cluster in ${owner} after 4 minutes; stop it: ${stop}`);
        },
      );
    }, 300_000);

    afterAll(async () => {
      cri?.close();
      await ctd?.stop();
    }, 60_000);

    test("from the host: https://<kubernetes Service IP>/readyz reaches the apiserver", async () => {
      const ip = cluster.env.KUBERNETES_SERVICE_IP!;
      const svc = JSON.parse(await kubectl(["get", "service", "kubernetes", "-o", "json"]));
      expect(svc.spec.clusterIP).toBe(ip);
      const curl = ["curl", "-fsS", "--max-time", "3", "--cacert", cluster.serverCaFile, `https://${ip}/readyz`];
      const body = await until("the Service IP answering", async () => {
        const r = Bun.spawnSync(curl, { stdout: "pipe", stderr: "pipe" });
        return r.exitCode === 0 ? r.stdout.toString() : undefined;
      });
      expect(body).toBe("ok");
    }, 90_000);

    test("from a pod on a containerd bridge: a TCP connection to <Service IP>:443 opens", async () => {
      ctd = await startTestContainerd({ name: "cluster-svc" });
      cri = createCriClient({ endpoint: ctd.endpoint });
      const config = sandboxConfig("svc-client", { logDirectory: join(ctd.rootDir, "pod-logs") });
      const { podSandboxId } = await cri.runtime.runPodSandbox({ config });
      // busybox nc has no -z: with stdin at EOF it connects, then exits 0 (1 if the connect fails).
      const script = `for i in 1 2 3 4 5 6 7 8 9 10; do nc -w 2 ${cluster.env.KUBERNETES_SERVICE_IP} 443 </dev/null && exit 0; sleep 1; done; exit 1`;
      const { containerId } = await cri.runtime.createContainer({
        podSandboxId,
        config: containerConfig("nc", "docker.io/library/busybox:1.36", ["sh", "-c", script]),
        sandboxConfig: config,
      });
      await cri.runtime.startContainer({ containerId });
      const exit = await until("the nc container to exit", async () => {
        const { status } = await cri!.runtime.containerStatus({ containerId });
        return status && status.finishedAt !== 0n ? status.exitCode : undefined;
      }, 120_000);
      expect(exit).toBe(0);
    }, 180_000);
  });

  test("down stops every component: no process names the cluster's dir", async () => {
    const own = await startTestCluster({ name: "control-plane" });
    try {
      expect(pidsNaming(own.dir).length).toBeGreaterThanOrEqual(5);
    } finally {
      await own.stop();
    }
    expect(pidsNaming(own.dir)).toEqual([]);
  }, 300_000);
});
