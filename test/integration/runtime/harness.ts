// A runtime manager wired to the fake CRI over a real gRPC socket, with temp dirs and a FakeClock.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Container, Pod } from "../../../src/api/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics, type Metrics } from "../../../src/metrics/index.ts";
import { createRuntimeManager, type EnvObjects, type RuntimeManager } from "../../../src/runtime/index.ts";
import type { EventRecorder } from "../../../src/events/index.ts";
import type { PodSyncResult } from "../../../src/runtime/result.ts";
import type { ProbeResultsView } from "../../../src/runtime/actions-types.ts";
import { startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import type { RuntimePodStatus } from "../../../src/container/index.ts";

export const BUSYBOX = "docker.io/library/busybox:1.36";

export interface Harness {
  fake: FakeCri;
  cri: CriClient;
  rm: RuntimeManager;
  clock: FakeClock;
  log: ReturnType<typeof createMemoryLogger>;
  metrics: Metrics;
  dirs: { root: string; podLogsDir: string; containerLogsDir: string; podsDir: string };
  status(pod: Pod): Promise<RuntimePodStatus>;
  /** Reads the status, clears the recorded calls, syncs: `calls()` then shows only the sync's calls. */
  sync(pod: Pod): Promise<PodSyncResult>;
  /** Names of the calls recorded since the last sync started, without status reads. */
  calls(): string[];
  /** The signal every runtime call of a test takes; aborted by close(). */
  signal: AbortSignal;
  close(): Promise<void>;
}

export async function startHarness(opts: { probeResults?: ProbeResultsView; envObjects?: EnvObjects; recorder?: EventRecorder } = {}): Promise<Harness> {
  const clock = new FakeClock();
  const fake = await startFakeCri({ clock });
  const cri = createCriClient({ endpoint: fake.endpoint });
  const root = mkdtempSync(join(tmpdir(), "bunlet-rt-"));
  const dirs = { root, podLogsDir: join(root, "pods-logs"), containerLogsDir: join(root, "containers"), podsDir: join(root, "pods") };
  const log = createMemoryLogger();
  const metrics = createMetrics();
  let n = 0;
  const rm = createRuntimeManager({
    cri,
    clock,
    log,
    metrics,
    random: () => ((n++ * 0x9e3779b9) % 0x1_0000_0000) / 0x1_0000_0000,
    ...dirs,
    nodeName: "node1",
    dnsConfig: { servers: ["10.0.0.10"], searches: ["example.org"], options: ["ndots:2"] },
    hostIPs: ["192.168.1.5"],
    probeResults: opts.probeResults,
    envObjects: opts.envObjects,
    recorder: opts.recorder,
  });
  const lifetime = new AbortController();
  const signal = lifetime.signal;
  const status = (pod: Pod) => rm.getPodStatus(pod.metadata.uid!, pod.metadata.name!, pod.metadata.namespace!, { signal });
  return {
    fake,
    cri,
    rm,
    clock,
    log,
    metrics,
    dirs,
    status,
    async sync(pod) {
      const s = await status(pod);
      fake.clearCalls();
      return rm.syncPod(pod, s, { signal });
    },
    calls: () => fake.callNames(),
    signal,
    async close() {
      lifetime.abort();
      cri.close();
      await fake.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

let seq = 0;
/** A pod of namespace "ns" with a name and uid no other pod of the file has (pod1/uid-1, pod2/uid-2, ...). */
export function uniquePod(spec: Partial<Pod["spec"]> & { containers: Container[] }, meta: Partial<Pod["metadata"]> = {}): Pod {
  seq++;
  return makePod({ namespace: "ns", metadata: { name: `pod${seq}`, uid: `uid-${seq}`, ...meta }, spec: { restartPolicy: "Always", terminationGracePeriodSeconds: 30, ...spec } });
}

export const c = (name: string, extra: Partial<Container> = {}): Container => ({ name, image: BUSYBOX, ...extra });

/** The containers of the fake, by name, newest last. */
export function containersNamed(h: Harness, name: string) {
  return h.fake.state.containers.filter((x) => x.name === name);
}
