// A runtime manager on a real containerd from the harness, with temp dirs for logs and pod data.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Container, Pod } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { realClock } from "../../../src/lib/index.ts";
import { createMemoryLogger } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { createRuntimeManager, type EnvObjects, type RuntimeManager } from "../../../src/runtime/index.ts";
import type { PodSyncResult } from "../../../src/runtime/result.ts";
import { makePod } from "../../fixtures/pods.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { waitFor } from "../../harness/wait.ts";
import type { RuntimePodStatus } from "../../../src/container/index.ts";

export interface E2eRuntime {
  ctd: TestContainerd;
  cri: CriClient;
  rm: RuntimeManager;
  log: ReturnType<typeof createMemoryLogger>;
  dirs: { root: string; podLogsDir: string; containerLogsDir: string; podsDir: string };
  status(pod: Pod): Promise<RuntimePodStatus>;
  /** The signal every runtime call of a test takes; aborted by stop(). */
  signal: AbortSignal;
  sync(pod: Pod): Promise<PodSyncResult>;
  stop(): Promise<void>;
}

export async function startE2eRuntime(name: string, registryHost?: string, envObjects?: EnvObjects): Promise<E2eRuntime> {
  const ctd = await startTestContainerd({ name, registryHost });
  const cri = createCriClient({ endpoint: ctd.endpoint });
  const root = mkdtempSync(join(tmpdir(), `bunlet-rt-e2e-${name}-`));
  const dirs = { root, podLogsDir: join(root, "log-pods"), containerLogsDir: join(root, "log-containers"), podsDir: join(root, "pods") };
  const log = createMemoryLogger();
  const rm = createRuntimeManager({ cri, clock: realClock, log, metrics: createMetrics(), ...dirs, nodeName: "e2e-node", envObjects });
  const lifetime = new AbortController();
  const signal = lifetime.signal;
  const status = (pod: Pod) => rm.getPodStatus(pod.metadata.uid!, pod.metadata.name!, pod.metadata.namespace!, { signal });
  return {
    ctd,
    cri,
    rm,
    log,
    dirs,
    status,
    sync: async (pod) => rm.syncPod(pod, await status(pod), { signal }),
    signal,
    async stop() {
      lifetime.abort();
      cri.close();
      await ctd.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

let seq = 0;
/** A pod in namespace "e2e" with a fresh uid per call (the runtime keys everything by it). */
export function e2ePod(name: string, spec: Partial<Pod["spec"]> & { containers: Container[] }): Pod {
  seq++;
  return makePod({
    name,
    namespace: "e2e",
    metadata: { uid: `e2e-${name}-${process.pid}-${seq}` },
    spec: { restartPolicy: "Always", terminationGracePeriodSeconds: 10, ...spec },
  });
}

export const busybox = (name: string, command: string[], extra: Partial<Container> = {}): Container => ({
  name,
  image: BUSYBOX_IMAGE,
  imagePullPolicy: "IfNotPresent",
  command,
  ...extra,
});

/** Polls until check returns a value (real containers take real time; no fixed sleeps). */
export function eventually<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  return waitFor(what, check, { timeoutMs, intervalMs: 100 });
}
