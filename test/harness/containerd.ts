// A real containerd per test: own root, state, socket, bridge and /24, torn down without leftovers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startManagedContainerd, type ManagedContainerd } from "../../src/containerd/index.ts";
import { containerdBinary, type ContainerdVersion } from "./containerd-versions.ts";
import { createCriClient, type CriClient } from "../../src/cri/index.ts";
import { silentLogger, type BackoffOptions, type Logger } from "../../src/lib/index.ts";
import { deleteLink, deleteNatRulesFor, killShims, unmountUnder } from "./cleanup.ts";
import { ensureImages, importImages, runCommand } from "./images.ts";
import { allocateTestNetwork } from "./network.ts";
import { reapAbandoned, writeOwner } from "./reap.ts";
import { requireE2e } from "./require.ts";

export interface TestContainerdOptions {
  /** Part of the temp dir name, to tell instances apart when debugging. */
  name: string;
  /** `host:port` of a plain-http registry (see startTestRegistry) to configure as a mirror. */
  registryHost?: string;
  /** Skip importing the local busybox and pause images. */
  skipImages?: boolean;
  /** Which containerd: "1.6" (Debian 12's, the default), "1.7" (trixie's) or "2" (sid's); see containerd-versions.ts. */
  version?: ContainerdVersion;
  log?: Logger;
  /** How the managed containerd is restarted after it dies (default: 1 s doubling to 30 s). */
  restartBackoff?: BackoffOptions;
  /** The runc its handlers run (default: the host's); see runcForUserNamespaces. */
  runcBinary?: string;
}

export interface TestContainerd {
  endpoint: string;
  socketPath: string;
  rootDir: string;
  /** The containerd binary it runs. */
  binary: string;
  bridgeName: string;
  podSubnet: string;
  /** The managed containerd underneath (pid, restarts). */
  managed: ManagedContainerd;
  /** Removes every sandbox and container, stops containerd, unmounts, deletes the dir and the bridge. */
  stop(): Promise<void>;
}

/** A CRI Version probe, the readiness check bunlet itself uses. */
export function criVersionProbe(endpoint: string): { probe: (signal: AbortSignal) => Promise<void>; close(): void } {
  let client: CriClient | undefined;
  return {
    probe: async (signal) => {
      client ??= createCriClient({ endpoint });
      await client.runtime.version({}, { signal, timeoutMs: 2000 });
    },
    close: () => client?.close(),
  };
}

export async function startTestContainerd(opts: TestContainerdOptions): Promise<TestContainerd> {
  requireE2e();
  if (!opts.skipImages) await ensureImages();
  reapAbandoned();
  const binary = containerdBinary(opts.version ?? "1.6");
  const rootDir = mkdtempSync(join(tmpdir(), `bunlet-${opts.name.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 20)}-`));
  const net = allocateTestNetwork();
  const socketPath = join(rootDir, "containerd", "containerd.sock");
  const endpointGuess = `unix://${socketPath}`;
  const owner = { ownerPid: process.pid, socketPath, bridgeName: net.bridgeName, podSubnet: net.podSubnet, lockFile: net.lockFile };
  writeOwner(rootDir, owner);
  const probe = criVersionProbe(endpointGuess);
  let managed: ManagedContainerd | undefined;
  const teardown = async () => {
    if (managed) {
      await removeEverything(managed.endpoint, managed.socketPath).catch(() => {});
      await managed.stop();
      killShims(managed.socketPath);
    }
    probe.close();
    unmountUnder(rootDir);
    rmSync(rootDir, { recursive: true, force: true });
    deleteLink(net.bridgeName);
    deleteNatRulesFor(net.podSubnet);
    net.release();
  };
  try {
    managed = await startManagedContainerd({
      rootDir,
      log: opts.log ?? silentLogger,
      probe: probe.probe,
      bridgeName: net.bridgeName,
      podSubnet: net.podSubnet,
      registryMirrors: opts.registryHost ? [opts.registryHost] : [],
      // A second runc handler, for RuntimeClass tests.
      extraRuncHandlers: ["test-handler"],
      restartBackoff: opts.restartBackoff,
      containerdPath: binary,
      runcBinary: opts.runcBinary,
    });
    writeOwner(rootDir, { ...owner, childPid: managed.pid });
    if (managed.endpoint !== endpointGuess) throw new Error(`unexpected endpoint ${managed.endpoint}, wanted ${endpointGuess}`);
    if (!opts.skipImages) await importImages(managed.socketPath);
  } catch (err) {
    await teardown();
    throw err;
  }
  let stopped: Promise<void> | undefined;
  return {
    endpoint: managed.endpoint,
    socketPath: managed.socketPath,
    rootDir,
    binary,
    bridgeName: net.bridgeName,
    podSubnet: net.podSubnet,
    managed,
    stop: () => (stopped ??= teardown()),
  };
}

/** CRI teardown first (it runs CNI DEL, releasing IPs and iptables rules), then plain containerd tasks. */
async function removeEverything(endpoint: string, socketPath: string): Promise<void> {
  const cri = createCriClient({ endpoint });
  try {
    const { items } = await cri.runtime.listPodSandbox({});
    for (const sandbox of items) {
      await cri.runtime.stopPodSandbox({ podSandboxId: sandbox.id }).catch(() => {});
      await cri.runtime.removePodSandbox({ podSandboxId: sandbox.id }).catch(() => {});
    }
    const { containers } = await cri.runtime.listContainers({});
    for (const c of containers) await cri.runtime.removeContainer({ containerId: c.id }).catch(() => {});
  } finally {
    cri.close();
  }
  // Containers made with `ctr run` (any namespace) are invisible to CRI.
  const ctr = ["ctr", "--address", socketPath];
  for (const ns of (await runCommand([...ctr, "namespaces", "ls", "-q"])).split("\n").filter(Boolean)) {
    for (const id of (await runCommand([...ctr, "-n", ns, "containers", "ls", "-q"])).split("\n").filter(Boolean)) {
      await runCommand([...ctr, "-n", ns, "tasks", "kill", "-s", "SIGKILL", id]).catch(() => {});
      await runCommand([...ctr, "-n", ns, "tasks", "rm", "-f", id]).catch(() => {});
      await runCommand([...ctr, "-n", ns, "containers", "rm", id]).catch(() => {});
    }
  }
}
