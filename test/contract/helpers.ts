/**
 * Shared pieces of the CRI contract suite: a pod "kit" that creates sandboxes and containers with
 * fresh names under a temp log root, and waiting for a container state with a deadline (real
 * containers take real time to exit).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContainerState, type CriClient } from "../../src/cri/index.ts";
import { containerConfig, sandboxConfig } from "../fake-cri/fixtures.ts";
import { waitFor } from "../harness/wait.ts";

export interface PodKit {
  logRoot: string;
  /** Runs a sandbox; returns its id and the config used. */
  sandbox(name?: string, options?: Parameters<typeof sandboxConfig>[1]): Promise<{ id: string; config: ReturnType<typeof sandboxConfig> }>;
  /** Creates (and with start=true starts) a container in the sandbox. */
  container(
    sandbox: { id: string; config: ReturnType<typeof sandboxConfig> },
    name: string,
    command: string[],
    options?: Parameters<typeof containerConfig>[3] & { start?: boolean; image?: string },
  ): Promise<string>;
}

export function podKit(client: () => CriClient, busybox: string): PodKit {
  const logRoot = mkdtempSync(join(tmpdir(), "cri-contract-logs-"));
  let seq = 0;
  return {
    logRoot,
    async sandbox(name = "pod", options = {}) {
      const uid = crypto.randomUUID();
      const podName = `${name}-${++seq}`;
      const config = sandboxConfig(podName, { uid, logDirectory: join(logRoot, uid), ...options });
      const { podSandboxId } = await client().runtime.runPodSandbox({ config });
      return { id: podSandboxId, config };
    },
    async container(sandbox, name, command, options = {}) {
      const { containerId } = await client().runtime.createContainer({
        podSandboxId: sandbox.id,
        config: containerConfig(name, options.image ?? busybox, command, options),
        sandboxConfig: sandbox.config,
      });
      if (options.start) await client().runtime.startContainer({ containerId });
      return containerId;
    },
  };
}

/** Polls ContainerStatus until the container reaches `state` (10 s at most). */
export async function waitForContainerState(client: CriClient, containerId: string, state: ContainerState) {
  let seen = ContainerState.CONTAINER_UNKNOWN;
  return waitFor(`container ${containerId} to be ${ContainerState[state]}`, async () => {
    const status = (await client.runtime.containerStatus({ containerId })).status!;
    seen = status.state;
    return status.state === state && status;
  }, { intervalMs: 25, detail: () => `it stayed ${ContainerState[seen]}` });
}

export const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
