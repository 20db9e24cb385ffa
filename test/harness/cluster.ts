// A real single-node control plane (scripts/cluster.sh: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, kube-proxy), all its state in one temp dir, stopped
// with `cluster.sh down` afterwards, or by the next harness start if the test process died.
// The cluster test files share one per test process (shared-cluster.ts); this file starts one or
// opens one that is already up.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "./images.ts";
import { reapAbandoned, writeOwner } from "./reap.ts";
import { requireE2e } from "./require.ts";

const CLUSTER_SH = join(REPO_ROOT, "scripts/cluster.sh");

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TestCluster {
  dir: string;
  /** `https://<host address>:<port>` */
  server: string;
  adminKubeconfig: string;
  /** The CA of the cluster's client certificates (a node's --client-ca-file). */
  clientCaFile: string;
  /** The CA of the apiserver's serving certificate. */
  serverCaFile: string;
  /** What `cluster.sh up` chose: ports, API_ADDRESS, KUBERNETES_SERVICE_IP, K8S_BIN, ... */
  env: Record<string, string>;
  /** kubectl of the same release as the apiserver, with the admin kubeconfig unless one is given. */
  kubectl(args: string[], opts?: { kubeconfig?: string; stdin?: string }): Promise<CommandResult>;
  /** `cluster.sh node DIR NAME`: a kubeconfig for node NAME (CN=system:node:NAME, O=system:nodes). */
  nodeKubeconfig(name: string): Promise<string>;
  /**
   * The dir of the cluster whose kube-proxy owns this host's Service rules (cluster.sh's lock);
   * while it is another cluster's, ours waits and this cluster's Services are not routed here.
   */
  serviceRulesOwner(): string;
  /** `cluster.sh down DIR`, then removes the dir. */
  stop(): Promise<void>;
}

async function run(cmd: string[], stdin?: string): Promise<CommandResult> {
  const proc = Bun.spawn(cmd, { stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function clusterSh(...args: string[]): Promise<string> {
  const r = await run(["bash", CLUSTER_SH, ...args]);
  if (r.code !== 0) throw new Error(`scripts/cluster.sh ${args.join(" ")} exited ${r.code}:\n${r.stderr.trim()}`);
  return r.stdout;
}

function parseEnv(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

/**
 * Starts a control plane in a fresh temp dir. The binaries come from the cache (scripts/test.sh
 * builds them before the tests; a cold build inside a test would take most of an hour).
 */
export async function startTestCluster(opts: { name: string }): Promise<TestCluster> {
  requireE2e(["openssl", "iptables", "curl", "ss", "flock"]);
  requireK8sBinaries();
  reapAbandoned();
  const dir = mkdtempSync(join(tmpdir(), `bunlet-cluster-${opts.name.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 20)}-`));
  writeOwner(dir, { ownerPid: process.pid, stopCommand: ["bash", CLUSTER_SH, "down", dir] });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await clusterSh("down", dir);
      rmSync(dir, { recursive: true, force: true });
    })());
  try {
    await clusterSh("up", dir);
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
  return clusterIn(dir, stop);
}

/**
 * The control plane `cluster.sh up DIR` started (by scripts/test.sh, say), opened without taking
 * it over: stop() does nothing, whoever started it stops it.
 */
export function openTestCluster(dir: string): TestCluster {
  requireE2e(["openssl", "iptables", "curl", "ss", "flock"]);
  if (!existsSync(join(dir, "cluster.env"))) throw new Error(`${dir} holds no cluster (no cluster.env): start it with \`bash scripts/cluster.sh up ${dir}\``);
  return clusterIn(dir, async () => {});
}

function clusterIn(dir: string, stop: () => Promise<void>): TestCluster {
  const env = parseEnv(join(dir, "cluster.env"));
  const kubectlBin = join(env.K8S_BIN!, "kubectl");
  const adminKubeconfig = join(dir, "admin.kubeconfig");
  for (const f of [adminKubeconfig, join(dir, "client-ca.crt"), kubectlBin]) {
    if (!existsSync(f)) throw new Error(`cluster.sh up did not leave ${f}`);
  }
  return {
    dir,
    server: env.SERVER!,
    adminKubeconfig,
    clientCaFile: join(dir, "client-ca.crt"),
    serverCaFile: join(dir, "server-ca.crt"),
    env,
    kubectl: (args, o = {}) => run([kubectlBin, `--kubeconfig=${o.kubeconfig ?? adminKubeconfig}`, ...args], o.stdin),
    serviceRulesOwner: () => {
      try {
        return readFileSync(join(env.K8S_BIN!, "..", "kube-proxy.lock"), "utf8").trim();
      } catch {
        return "";
      }
    },
    // Test processes sharing the cluster sign node certificates with its CA at the same time, and
    // openssl's serial file (-CAcreateserial) takes one writer at a time.
    nodeKubeconfig: async (name) => {
      const r = await run(["flock", join(dir, "nodes.lock"), "bash", CLUSTER_SH, "node", dir, name]);
      if (r.code !== 0) throw new Error(`scripts/cluster.sh node ${dir} ${name} exited ${r.code}:\n${r.stderr.trim()}`);
      return r.stdout.trim().split("\n").pop()!;
    },
    stop,
  };
}

/** The upstream binaries must be in the cache already: a cold build inside a test would time out. */
function requireK8sBinaries(): void {
  const goMod = readFileSync(join(REPO_ROOT, "scripts/k8s/go.mod"), "utf8");
  const version = /^\s*k8s\.io\/kubernetes (v\S+)/m.exec(goMod)?.[1];
  const binary = join(process.env.BUNLET_K8S_CACHE ?? "/var/cache/bunlet-k8s", version ?? "?", "k8s");
  if (!existsSync(binary)) {
    throw new Error(`${binary} is missing: run \`bash scripts/k8s/build.sh\` first (scripts/test.sh does; a cold build takes about 30 minutes on 2 cores)`);
  }
}
