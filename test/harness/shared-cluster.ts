// One control plane for every cluster test file of a test process: starting one takes 15-20 s
// and a run has a dozen files. bun test runs the files of one invocation in one process, so a
// module singleton is shared by all of them; it starts with the first file that asks and stops
// when the process ends. Each file gets a namespace of its own (and its own node names), and gives
// the cluster back as it found it: its pods, namespace and Node objects deleted.
//
// BUNLET_TEST_CLUSTER=DIR (scripts/test.sh's cluster lane sets it) opens the cluster that
// `cluster.sh up DIR` started instead: several test processes then share it, and its owner stops it.
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./images.ts";
import { openTestCluster, startTestCluster, type TestCluster } from "./cluster.ts";
import { waitFor } from "./wait.ts";

let shared: Promise<TestCluster> | undefined;

/** The test process's control plane, started on first use. */
export function sharedTestCluster(): Promise<TestCluster> {
  shared ??= startShared().catch((err) => {
    // The next file tries again rather than failing on this file's start-up error.
    shared = undefined;
    throw err;
  });
  return shared;
}

async function startShared(): Promise<TestCluster> {
  const dir = process.env.BUNLET_TEST_CLUSTER;
  if (dir) return openTestCluster(dir);
  const cluster = await startTestCluster({ name: "shared" });
  stopWhenProcessEnds(cluster.dir);
  return cluster;
}

/**
 * bun test emits neither "exit" nor "beforeExit" and may end on a signal, so a watcher outside it
 * stops the cluster once this process is gone, however it ended. It runs in a session of its own:
 * scripts/test.sh ends a run by killing its process group, and the watcher must outlive that.
 * (A watcher killed too leaves the cluster to the next harness start's reapAbandoned.)
 */
function stopWhenProcessEnds(dir: string): void {
  const script = `while kill -0 "$1" 2>/dev/null; do sleep 0.5; done; bash "$2" down "$3" >/dev/null 2>&1; rm -rf "$3"`;
  const watcher = Bun.spawn(["setsid", "bash", "-c", script, "stop-shared-cluster", String(process.pid), join(REPO_ROOT, "scripts/cluster.sh"), dir], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  watcher.unref();
}

/** A cluster seen from one namespace: kubectl (and `adminKubeconfig`) default to it. */
export interface NamespacedCluster extends TestCluster {
  readonly namespace: string;
}

/** A test file's namespace: a DNS label made of the file's name. */
export function namespaceFor(name: string): string {
  return `e2e-${name.toLowerCase().replace(/[^a-z0-9-]/g, "-")}`.slice(0, 63).replace(/-+$/, "");
}

async function kubectlOk(cluster: TestCluster, args: string[], opts: { kubeconfig?: string } = {}): Promise<string> {
  const r = await cluster.kubectl(args, opts);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}: ${r.stderr.trim()}`);
  return r.stdout;
}

/**
 * Creates the namespace and waits for what the controller-manager gives a new one (its `default`
 * ServiceAccount, without which pods are refused, and kube-root-ca.crt), and returns the cluster
 * with an admin kubeconfig whose context is that namespace.
 */
export async function openNamespace(cluster: TestCluster, namespace: string): Promise<NamespacedCluster> {
  const created = await cluster.kubectl(["create", "namespace", namespace]);
  if (created.code !== 0 && !created.stderr.includes("AlreadyExists")) {
    throw new Error(`kubectl create namespace ${namespace} exited ${created.code}: ${created.stderr.trim()}`);
  }
  const kubeconfig = join(cluster.dir, `admin-${namespace}.kubeconfig`);
  copyFileSync(cluster.adminKubeconfig, kubeconfig);
  await kubectlOk(cluster, ["config", "set-context", "--current", `--namespace=${namespace}`], { kubeconfig });
  await waitFor(`the default ServiceAccount and kube-root-ca.crt in namespace ${namespace}`, async () => {
    const sa = await cluster.kubectl(["-n", namespace, "get", "serviceaccount", "default", "-o", "name"]);
    const ca = await cluster.kubectl(["-n", namespace, "get", "configmap", "kube-root-ca.crt", "-o", "name"]);
    return sa.code === 0 && ca.code === 0;
  }, { timeoutMs: 60_000, intervalMs: 200 });
  return {
    ...cluster,
    namespace,
    adminKubeconfig: kubeconfig,
    kubectl: (args, o = {}) => cluster.kubectl(args, { ...o, kubeconfig: o.kubeconfig ?? kubeconfig }),
  };
}

/**
 * Leaves the shared cluster as the next file expects it, once the file's bunlets are stopped: the
 * namespace deleted with everything in it, the pods bound to the nodes in any namespace (mirror
 * pods) and the Node objects deleted. Pods of a stopped node never finish terminating by
 * themselves, so they are deleted with no grace period until the namespace is gone.
 */
export async function closeNamespace(cluster: TestCluster, namespace: string, nodes: string[]): Promise<void> {
  await cluster.kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  const forceDelete = async () => {
    await cluster.kubectl(["-n", namespace, "delete", "pods", "--all", "--force", "--grace-period=0", "--wait=false", "--ignore-not-found"]);
    for (const node of nodes) {
      await cluster.kubectl(["delete", "pods", "--all-namespaces", "--field-selector", `spec.nodeName=${node}`, "--force", "--grace-period=0", "--wait=false", "--ignore-not-found"]);
    }
  };
  await forceDelete();
  if (nodes.length > 0) await kubectlOk(cluster, ["delete", "node", ...nodes, "--ignore-not-found"]);
  await waitFor(`namespace ${namespace} deleted`, async () => {
    const r = await cluster.kubectl(["get", "namespace", namespace, "-o", "name"]);
    if (r.code !== 0 && r.stderr.includes("NotFound")) return true;
    await forceDelete();
    return false;
  }, { timeoutMs: 120_000, intervalMs: 1_000 });
  const kubeconfig = join(cluster.dir, `admin-${namespace}.kubeconfig`);
  if (existsSync(kubeconfig)) rmSync(kubeconfig, { force: true });
}
