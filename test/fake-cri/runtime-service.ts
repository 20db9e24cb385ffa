/**
 * RuntimeService unary handlers over the store: request message in, response init out. Errors
 * are FakeCriErrors with the codes and texts containerd 1.6 gives (NOT_FOUND for unknown ids in
 * status/stop calls, success when removing what is already gone).
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { ContainerState, GrpcCode, NamespaceMode, type RuntimeService } from "../../src/cri/index.ts";
import type { Clock } from "../../src/lib/index.ts";
import type { Behaviors } from "./behaviors.ts";
import { toContainer, toContainerStatus, toPodSandbox, toPodSandboxStatus } from "./convert.ts";
import { FakeCriError, notFound, unknown } from "./errors.ts";
import { filterContainers, filterSandboxes } from "./filters.ts";
import { stateName, type FakeStore } from "./store.ts";

type Methods = (typeof RuntimeService)["method"];
type Req<K extends keyof Methods> = Methods[K]["input"] extends infer I extends import("@bufbuild/protobuf").DescMessage
  ? import("@bufbuild/protobuf").MessageShape<I>
  : never;
type Res<K extends keyof Methods> = MessageInitShape<Methods[K]["output"]>;
type UnaryName = Exclude<keyof Methods, "getContainerEvents">;

export type RuntimeHandlers = { [K in UnaryName]: (request: Req<K>, signal: AbortSignal) => Res<K> | Promise<Res<K>> };

export interface RuntimeConditions {
  runtimeReady: boolean;
  networkReady: boolean;
}

export const FAKE_RUNTIME_VERSION = { version: "0.1.0", runtimeName: "fake-cri", runtimeVersion: "v1.6.20-fake", runtimeApiVersion: "v1" };

export function runtimeHandlers(store: FakeStore, behaviors: Behaviors, conditions: RuntimeConditions, clock: Clock): RuntimeHandlers {
  return {
    version: () => FAKE_RUNTIME_VERSION,
    // containerd's CRI accepts a pod CIDR and uses it only with a CNI conf template; so does the fake.
    updateRuntimeConfig: () => ({}),
    status: () => ({
      status: {
        conditions: [
          {
            type: "RuntimeReady",
            status: conditions.runtimeReady,
            reason: conditions.runtimeReady ? "" : "ContainerdNotReady",
            message: conditions.runtimeReady ? "" : "fake CRI: runtime marked not ready",
          },
          {
            type: "NetworkReady",
            status: conditions.networkReady,
            reason: conditions.networkReady ? "" : "NetworkPluginNotReady",
            message: conditions.networkReady ? "" : "Network plugin returns error: cni plugin not initialized",
          },
        ],
      },
      info: {},
    }),
    runPodSandbox: (req) => {
      const config = req.config;
      if (!config) throw unknown("sandbox config must not be nil");
      const hostNetwork = config.linux?.securityContext?.namespaceOptions?.network === NamespaceMode.NODE;
      if (!hostNetwork && !conditions.networkReady) {
        throw unknown("failed to setup network for sandbox: cni plugin not initialized");
      }
      return { podSandboxId: store.runPodSandbox(config, req.runtimeHandler) };
    },
    stopPodSandbox: (req) => {
      store.stopPodSandbox(req.podSandboxId);
      return {};
    },
    removePodSandbox: (req) => {
      store.removePodSandbox(req.podSandboxId);
      return {};
    },
    podSandboxStatus: (req) => ({ status: toPodSandboxStatus(store.sandbox(req.podSandboxId)), info: {} }),
    listPodSandbox: (req) => ({ items: filterSandboxes([...store.sandboxes.values()], req.filter).map(toPodSandbox) }),
    createContainer: (req) => {
      if (!req.config) throw unknown("container config must not be nil");
      return { containerId: store.createContainer(req.podSandboxId, req.config, req.sandboxConfig) };
    },
    startContainer: (req) => {
      store.startContainer(req.containerId);
      return {};
    },
    stopContainer: (req) => {
      store.stopContainer(req.containerId, Number(req.timeout));
      return {};
    },
    removeContainer: (req) => {
      store.removeContainer(req.containerId);
      return {};
    },
    listContainers: (req) => ({
      containers: filterContainers([...store.containers.values()], [...store.sandboxes.keys()], req.filter).map(toContainer),
    }),
    containerStatus: (req) => ({ status: toContainerStatus(store.container(req.containerId), store.images), info: {} }),
    // A running container uses a tenth of a core and 1 MiB; a stopped one nothing (as containerd reports it).
    listContainerStats: (req) => {
      const now = BigInt(clock.now()) * 1_000_000n;
      const f = req.filter;
      const picked = filterContainers([...store.containers.values()], [...store.sandboxes.keys()], f && { id: f.id, podSandboxId: f.podSandboxId, labelSelector: f.labelSelector, $typeName: "runtime.v1.ContainerFilter" });
      return {
        stats: picked.map((c) => {
          const running = c.state === ContainerState.CONTAINER_RUNNING;
          return {
            attributes: { id: c.id, metadata: { name: c.name, attempt: c.attempt }, labels: c.labels, annotations: c.annotations },
            cpu: { timestamp: now, usageCoreNanoSeconds: { value: running ? (now - c.startedAt) / 10n : 0n } },
            memory: { timestamp: now, workingSetBytes: { value: running ? 1_048_576n : 0n } },
            writableLayer: { timestamp: now, usedBytes: { value: 4096n }, inodesUsed: { value: 3n } },
          };
        }),
      };
    },
    updateContainerResources: (req) => {
      store.container(req.containerId);
      return {};
    },
    reopenContainerLog: (req) => {
      const c = store.container(req.containerId);
      if (c.state !== ContainerState.CONTAINER_RUNNING) throw unknown("container is not running");
      return {};
    },
    execSync: async (req, signal) => {
      const c = store.containers.get(req.containerId) ?? findContainer(store, req.containerId);
      if (c.state !== ContainerState.CONTAINER_RUNNING) throw unknown(`failed to exec in container: container is in ${stateName(c.state)} state`);
      const result = behaviors.execResult(req.cmd, c);
      const delayMs = result.delayMs ?? 0;
      const timeoutMs = Number(req.timeout) * 1000;
      if (timeoutMs > 0 && delayMs > timeoutMs) {
        await clock.sleep(timeoutMs, signal);
        throw new FakeCriError(GrpcCode.DEADLINE_EXCEEDED, `failed to exec in container: timeout ${req.timeout}s exceeded: context deadline exceeded`);
      }
      if (delayMs > 0) await clock.sleep(delayMs, signal);
      return { stdout: bytes(result.stdout), stderr: bytes(result.stderr), exitCode: result.exitCode ?? 0 };
    },
    // The fake runtime has no streaming server: a streaming request fails as a runtime without one would.
    exec: () => {
      throw new FakeCriError(GrpcCode.UNIMPLEMENTED, "fake CRI: no streaming server");
    },
    attach: () => {
      throw new FakeCriError(GrpcCode.UNIMPLEMENTED, "fake CRI: no streaming server");
    },
    portForward: () => {
      throw new FakeCriError(GrpcCode.UNIMPLEMENTED, "fake CRI: no streaming server");
    },
  };
}

function findContainer(store: FakeStore, idOrPrefix: string) {
  try {
    return store.container(idOrPrefix);
  } catch (err) {
    if (err instanceof FakeCriError && err.code === GrpcCode.NOT_FOUND) {
      throw notFound(`failed to exec in container: failed to find container "${idOrPrefix}" in store: not found`);
    }
    throw err;
  }
}

function bytes(value: string | Uint8Array | undefined): Uint8Array {
  if (value === undefined) return new Uint8Array();
  return typeof value === "string" ? new TextEncoder().encode(value) : value;
}
