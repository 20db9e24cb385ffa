// The set-up the cluster e2e files share, as agentFixture (../agent/bunlet.ts) is for the agent
// files: the test process's control plane (shared by the files, ../../harness/shared-cluster.ts),
// a namespace of the file's own, a test containerd and dist/bunlet joining as one node.
import { afterAll, beforeAll } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { closeNamespace, namespaceFor, openNamespace, sharedTestCluster, type NamespacedCluster } from "../../harness/shared-cluster.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { bunletWaiter, ensureBuilt, freePort, nodeFlags, startBunlet, type BunletProcess, type Waiter } from "../agent/bunlet.ts";

export interface ClusterNodeFixtureOptions {
  /** Names the namespace (`e2e-<name>`), the test containerd (`cluster-<name>`) and the temporary directory. */
  name: string;
  /** The node's name: --hostname-override and the node kubeconfig's user (system:node:<node>). */
  node: string;
  /** The default timeout of `waitFor`. */
  waitTimeoutMs: number;
  /** Given, the temporary directory has manifests/ and bunlet gets --pod-manifest-path. */
  manifests?: boolean;
  /** Flags after the common ones (--node-status-update-frequency=2s is among those). */
  flags?: (fx: ClusterNodeFixture) => string[];
  /** Called in beforeAll before bunlet starts (to write manifests, pick ports). */
  beforeStart?: (fx: ClusterNodeFixture) => void | Promise<void>;
  /**
   * Called in afterAll once bunlet is stopped, before the namespace is deleted: to remove what the
   * file made outside its namespace on the shared control plane (an APIService, say).
   */
  beforeClose?: (fx: ClusterNodeFixture) => Promise<void>;
  /** Called in afterAll before the temporary directory is removed (to unmount what bunlet left). */
  beforeRemove?: (dir: string) => void;
}

export interface ClusterNodeFixture {
  /** The shared control plane; its kubectl and admin kubeconfig default to `namespace`. */
  readonly cluster: NamespacedCluster;
  /** The file's namespace, deleted with its contents after the file. */
  readonly namespace: string;
  readonly ctd: TestContainerd;
  readonly cri: CriClient;
  /** The temporary directory: manifests/ (with `manifests`), state/ (--root-dir), logs/. */
  readonly dir: string;
  /** --pod-manifest-path (with `manifests`). */
  readonly manifests: string;
  /** The node kubeconfig's path. */
  readonly kubeconfig: string;
  /** The bunlet started last. */
  readonly bunlet: BunletProcess | undefined;
  /** Starts dist/bunlet as the node again: the same kubeconfig, directories and healthz port. */
  start(): Promise<BunletProcess>;
  /** bunletWaiter of the current bunlet. */
  readonly waitFor: Waiter;
}

/**
 * beforeAll: dist/bunlet built, the shared cluster with the file's namespace, a test containerd
 * with a CRI client, a temporary directory and the node's kubeconfig, then bunlet started with the
 * node flags. afterAll: bunlet killed (SIGKILL), the client closed, the namespace, the node's pods
 * and its Node object deleted, containerd stopped, the directory removed.
 */
export function clusterNodeFixture(opts: ClusterNodeFixtureOptions): ClusterNodeFixture {
  const namespace = namespaceFor(opts.name);
  let cluster: NamespacedCluster | undefined;
  let ctd: TestContainerd | undefined;
  let cri: CriClient | undefined;
  let dir = "";
  let kubeconfig = "";
  let healthzPort = 0;
  let bunlet: BunletProcess | undefined;
  const ready = <T>(what: string, value: T | undefined): T => {
    if (value === undefined) throw new Error(`the cluster node fixture's ${what} is used before its beforeAll ran`);
    return value;
  };

  const fx: ClusterNodeFixture = {
    get cluster() {
      return ready("cluster", cluster);
    },
    namespace,
    get ctd() {
      return ready("containerd", ctd);
    },
    get cri() {
      return ready("CRI client", cri);
    },
    get dir() {
      return dir;
    },
    get manifests() {
      return join(dir, "manifests");
    },
    get kubeconfig() {
      return kubeconfig;
    },
    get bunlet() {
      return bunlet;
    },
    async start() {
      bunlet = await startBunlet(
        [
          `--kubeconfig=${kubeconfig}`,
          ...nodeFlags(fx.ctd.endpoint, dir, opts.node),
          ...(opts.manifests ? [`--pod-manifest-path=${fx.manifests}`] : []),
          `--healthz-port=${healthzPort}`,
          "--node-status-update-frequency=2s",
          ...(opts.flags?.(fx) ?? []),
        ],
        await freePort(),
      );
      return bunlet;
    },
    waitFor: bunletWaiter(() => bunlet, opts.waitTimeoutMs),
  };

  beforeAll(async () => {
    ensureBuilt();
    cluster = await openNamespace(await sharedTestCluster(), namespace);
    ctd = await startTestContainerd({ name: `cluster-${opts.name}` });
    cri = createCriClient({ endpoint: ctd.endpoint });
    dir = mkdtempSync(join(tmpdir(), `bunlet-cluster-${opts.name}-`));
    if (opts.manifests) mkdirSync(fx.manifests);
    kubeconfig = await cluster.nodeKubeconfig(opts.node);
    healthzPort = await freePort();
    await opts.beforeStart?.(fx);
    await fx.start();
  }, 300_000);

  afterAll(async () => {
    bunlet?.signal("SIGKILL");
    await bunlet?.exited;
    cri?.close();
    try {
      if (cluster) {
        await opts.beforeClose?.(fx);
        await closeNamespace(cluster, namespace, [opts.node]);
      }
    } finally {
      await ctd?.stop();
      if (dir) {
        opts.beforeRemove?.(dir);
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }, 240_000);

  return fx;
}
