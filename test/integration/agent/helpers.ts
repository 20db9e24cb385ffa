// A whole bunlet agent against the fake CRI: config from real flags, a manifest directory, the
// read-only server on an ephemeral port, a logger the test can read, and condition waits.
import { afterEach, beforeEach } from "bun:test";
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "prom-client";
import type { Pod, PodList, RestartPolicy } from "../../../src/api/index.ts";
import { parseArgs, type BunletConfig } from "../../../src/config/index.ts";
import { startAgent, type Agent } from "../../../src/kubelet/index.ts";
import { createLogger, type Fields } from "../../../src/lib/index.ts";
import { startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";

export const BUSYBOX = "docker.io/library/busybox:1.36";

export interface TestDirs {
  root: string;
  manifests: string;
  cleanup(): void;
}

export function makeDirs(): TestDirs {
  const root = mkdtempSync(join(tmpdir(), "bunlet-agent-"));
  const manifests = join(root, "manifests");
  return {
    root,
    manifests,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function agentConfig(dirs: TestDirs, endpoint: string, extra: string[] = []): BunletConfig {
  const parsed = parseArgs(
    [
      `--pod-manifest-path=${dirs.manifests}`,
      `--root-dir=${join(dirs.root, "state")}`,
      `--pod-logs-dir=${join(dirs.root, "logs", "pods")}`,
      `--container-logs-dir=${join(dirs.root, "logs", "containers")}`,
      `--container-runtime-endpoint=${endpoint}`,
      "--hostname-override=node1",
      "--file-check-frequency=200ms",
      "--read-only-port=10255",
      "--healthz-port=10248",
      // The fake runtime runs no process: no pod cgroups to make on the host.
      "--cgroups-per-qos=false",
      "--enforce-node-allocatable=",
      ...extra,
    ],
    { hostname: () => "node1", readFile: () => "" },
  );
  if (parsed.kind !== "run") throw new Error(`unexpected parse result ${parsed.kind}`);
  return parsed.config;
}

export interface RunningAgent extends Agent {
  lines: Fields[];
  registry: Registry;
}

/** Starts an agent with its own registry, ephemeral ports and a JSON logger recorded in memory. */
export async function runAgent(config: BunletConfig, signal?: AbortSignal): Promise<RunningAgent> {
  const lines: Fields[] = [];
  const log = createLogger({ format: "json", verbosity: 4, write: (line) => void lines.push(JSON.parse(line)) });
  const registry = new Registry();
  const agent = await startAgent(config, { log, signal: signal ?? new AbortController().signal, registry, randomPorts: true });
  return Object.assign(agent, { lines, registry });
}

export function writeManifest(dirs: TestDirs, file: string, pod: object): void {
  const { mkdirSync } = require("node:fs") as typeof import("node:fs");
  mkdirSync(dirs.manifests, { recursive: true });
  writeFileSync(join(dirs.manifests, file), JSON.stringify(pod));
}

export function removeManifest(dirs: TestDirs, file: string): void {
  unlinkSync(join(dirs.manifests, file));
}

/** A static pod of sleeping busybox containers ("main" unless named), with a short grace period. */
export function busyboxPod(name: string, opts: { restartPolicy?: RestartPolicy; containers?: string[] } = {}): Pod {
  return makePod({
    name,
    namespace: "default",
    spec: {
      restartPolicy: opts.restartPolicy ?? "Always",
      terminationGracePeriodSeconds: 2,
      containers: (opts.containers ?? ["main"]).map((c) => ({ name: c, image: BUSYBOX, command: ["sleep", "3600"] })),
    },
  });
}

export { waitFor } from "../../harness/wait.ts";

export async function getPods(agent: Agent): Promise<PodList> {
  const res = await fetch(`http://127.0.0.1:${agent.readOnlyPort}/pods`);
  return (await res.json()) as PodList;
}

export async function healthz(agent: Agent): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${agent.readOnlyPort}/healthz?verbose`);
  return { status: res.status, body: await res.text() };
}

/** The pod named `name` from /pods, when it is Running with every container ready. */
export async function runningPod(agent: Agent, name: string): Promise<Pod | undefined> {
  const pod = (await getPods(agent)).items.find((p) => p.metadata.name === `${name}-node1`);
  if (pod?.status?.phase !== "Running") return undefined;
  const ready = (pod.status.containerStatuses ?? []).every((c) => c.ready);
  return ready && (pod.status.containerStatuses ?? []).length > 0 ? pod : undefined;
}

/**
 * One fake CRI and one set of temp dirs per test, and every agent a test starts stopped after it:
 * the setup every whole-agent integration test shares. Read `fake` and `dirs` inside tests only.
 */
export function useAgentFixture() {
  const fx = {
    fake: undefined as unknown as FakeCri,
    dirs: undefined as unknown as TestDirs,
    agents: [] as RunningAgent[],
    async start(extra: string[] = []): Promise<RunningAgent> {
      const agent = await runAgent(agentConfig(fx.dirs, fx.fake.endpoint, extra));
      fx.agents.push(agent);
      return agent;
    },
  };
  beforeEach(async () => {
    fx.fake = await startFakeCri();
    fx.dirs = makeDirs();
  });
  afterEach(async () => {
    for (const a of fx.agents.splice(0)) await a.stop();
    await fx.fake.stop();
    fx.dirs.cleanup();
  });
  return fx;
}
