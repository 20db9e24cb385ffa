import { describe, expect, test } from "bun:test";
import type { Node } from "kubernetes-types/core/v1";
import { createMemoryLogger, FakeClock } from "../../../src/lib/index.ts";
import type { MachineInfo } from "../../../src/node/machine.ts";
import type { NodeStatusInputs } from "../../../src/node/setters.ts";
import { createNodeStatusLoop } from "../../../src/node/status-loop.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const machine: MachineInfo = {
  machineID: "m-1",
  systemUUID: "u-1",
  bootID: "b-1",
  kernelVersion: "6.1.0",
  osImage: "Debian GNU/Linux 12 (bookworm)",
  operatingSystem: "linux",
  architecture: "amd64",
  numCores: 2,
  memoryCapacityBytes: 8 * 1024 ** 3,
  hugePages: [],
  rootfsCapacityBytes: 50 * 1024 ** 3,
};

/** A fake apiserver holding one Node: GETs and status patches counted, a patch stored. */
function setup(withCache: boolean) {
  const clock = new FakeClock(T0);
  let stored: Node = { metadata: { name: "edge-1", resourceVersion: "1" }, status: {} };
  const calls = { get: 0, patch: 0 };
  const heartbeatClient = {
    get: async <T>() => {
      calls.get++;
      return structuredClone(stored) as T;
    },
    patch: async <T>(_path: string, patch: { status: Node["status"] }) => {
      calls.patch++;
      stored = { ...stored, status: { ...stored.status, ...patch.status, addresses: (patch.status?.addresses ?? []).filter((a) => !("$patch" in a)) } };
      return structuredClone(stored) as T;
    },
  };
  const statusInputs = async (): Promise<NodeStatusInputs> => ({
    now: clock.now(),
    hostname: "edge-1",
    nodeIPs: ["192.0.2.10"],
    machine,
    maxPods: 110,
    kubeletPort: 10250,
    kubeletVersion: "v1.37.2",
    runtime: { name: "containerd", version: "1.7.24" },
    images: [],
    notReadyReasons: [],
    pressure: { memory: false, disk: false, pid: false },
  });
  const loop = createNodeStatusLoop(
    {
      client: heartbeatClient as never,
      heartbeatClient: heartbeatClient as never,
      statusInputs,
      // The watch delivers what the apiserver stores (here at once).
      cachedNode: withCache ? () => structuredClone(stored) : undefined,
      clock,
      random: () => 0,
      log: createMemoryLogger(),
    },
    { nodeName: "edge-1", hostname: "edge-1", nodeLabels: {}, registerWithTaints: [], registerNode: false, updateFrequencyMs: 10_000, reportFrequencyMs: 300_000 },
  );
  return { clock, calls, loop };
}

describe("the node status loop at rest", () => {
  test("with the node informer's copy, a round reads no Node from the apiserver; the status is patched once", async () => {
    const { clock, calls, loop } = setup(true);
    const stop = new AbortController();
    const running = loop.run(stop.signal);
    for (let i = 0; i < 6; i++) await clock.advance(10_000);
    expect(calls).toEqual({ get: 0, patch: 1 });
    stop.abort();
    await running;
  });

  test("without one (before the watch has listed), every round GETs the Node, as the kubelet does", async () => {
    const { clock, calls, loop } = setup(false);
    const stop = new AbortController();
    const running = loop.run(stop.signal);
    for (let i = 0; i < 6; i++) await clock.advance(10_000);
    expect(calls.get).toBe(7);
    expect(calls.patch).toBe(1);
    stop.abort();
    await running;
  });
});
