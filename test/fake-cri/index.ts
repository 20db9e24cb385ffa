/**
 * A fake CRI runtime for tests: a real gRPC server on a temp unix socket, serving
 * runtime.v1.RuntimeService and ImageService from in-memory state, recording every call,
 * streaming ContainerEventResponses for its own state changes, and taking orders from the test
 * (containers exiting, sandboxes dying, injected errors and latency, a runtime that goes away).
 *
 *   const cri = await startFakeCri();
 *   const client = createCriClient({ endpoint: cri.endpoint });
 *   ...
 *   cri.exitContainer(id, 1);            // the container's process failed
 *   cri.failNext("CreateContainer", GrpcCode.UNKNOWN);
 *   await cri.stop();
 */
import { create, type DescMethod, type Message } from "@bufbuild/protobuf";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GrpcCode, ContainerEventResponse } from "../../src/cri/index.ts";
import { ImageService, RuntimeService } from "../../src/cri/testing.ts";
import { realClock, type Clock, type Timer } from "../../src/lib/index.ts";
import { Behaviors, type ContainerBehavior, type ContainerMatcher, type ExecMatcher, type ExecResult } from "./behaviors.ts";
import type { FakeCriError } from "./errors.ts";
import { Condition } from "./condition.ts";
import { buildEvent, EventHub, serveEvents, type EventsControl } from "./events.ts";
import { FaultPlan } from "./faults.ts";
import { cryptoRandom, type RandomBytes } from "./ids.ts";
import { imageHandlers, type PullAuth, type Pullability } from "./image-service.ts";
import { addImage, normalizeImageRef, removeImage, type FakeImage, type ImageOptions } from "./images.ts";
import { runtimeHandlers, type RuntimeConditions } from "./runtime-service.ts";
import { GrpcListener, type CallHandler } from "./server.ts";
import { FakeStore, type ExitOptions } from "./store.ts";
import type { FakeContainer, FakeCriState, FakeSandbox } from "./types.ts";

export type { ContainerBehavior, ContainerMatcher, ExecMatcher, ExecResult } from "./behaviors.ts";
export type { EventsControl } from "./events.ts";
export type { FakeImage, ImageOptions } from "./images.ts";
export type { ExitOptions } from "./store.ts";
export type { FakeContainer, FakeCriState, FakeSandbox } from "./types.ts";
export { FaultPlan } from "./faults.ts";
export { callError, containerConfig, readEvents, sandboxConfig, type EventStreamReader } from "./fixtures.ts";
export { normalizeImageRef } from "./images.ts";
export type { RandomBytes } from "./ids.ts";
export { FAKE_RUNTIME_VERSION } from "./runtime-service.ts";

/** The images a new fake holds unless told otherwise: the ones the e2e harness imports. */
export const DEFAULT_IMAGES = ["docker.io/library/busybox:1.36", "registry.k8s.io/pause:3.10.2"];

export interface FakeCriOptions {
  /** Timestamps, exit timers, delays and refusal windows run on this clock. Default: real time. */
  clock?: Clock;
  /** Random bytes for ids. Default: node:crypto. */
  random?: RandomBytes;
  /** Images present at start. Default: DEFAULT_IMAGES. */
  images?: string[];
}

export interface RecordedCall {
  /** The gRPC method name, e.g. "RunPodSandbox", "ImageStatus", "GetContainerEvents". */
  method: string;
  service: "RuntimeService" | "ImageService";
  request: Message;
  /** Clock time (ms) when the call arrived. */
  at: number;
}

export interface FakeCri {
  readonly endpoint: string;
  readonly socketPath: string;
  readonly state: FakeCriState;
  /** Every call received, in arrival order, including ones that then failed by injection. */
  readonly calls: RecordedCall[];
  callNames(): string[];
  clearCalls(): void;
  /** Resolves once `count` calls of `method` have arrived in total (before their delay/fault applies). */
  whenCalled(method: string, count?: number, signal?: AbortSignal): Promise<void>;
  /** GetContainerEvents behaviour (mutable) and every event published so far. */
  readonly events: EventsControl & {
    readonly history: ContainerEventResponse[];
    readonly subscribers: number;
    /** Resolves once at least `n` GetContainerEvents streams are open. */
    whenSubscribers(n?: number, signal?: AbortSignal): Promise<void>;
  };
  readonly faults: FaultPlan;

  // What a real runtime does by itself.
  exitContainer(id: string, exitCode: number, options?: ExitOptions): void;
  killSandbox(id: string): void;
  removeContainerBehindTheBack(id: string): void;
  setNetworkReady(ready: boolean): void;
  setRuntimeReady(ready: boolean): void;

  // Images.
  /** Adds an image as `ctr import` would (no repo digest unless `withDigest`). */
  addImage(ref: string, options?: ImageOptions): FakeImage;
  removeImage(ref: string): boolean;
  /** Whether PullImage of `ref` succeeds (adding the image with a repo digest). Default: only when already present. */
  setPullable(ref: string, pullable: boolean): void;
  /** The registry of `ref` answers PullImage only with this user name and password in its AuthConfig (401 otherwise). */
  requirePullAuth(ref: string, username: string, password: string): void;

  // Behaviour of what runs inside containers.
  setContainerBehavior(matcher: ContainerMatcher, behavior: ContainerBehavior): void;
  onCreate(fn: (container: FakeContainer) => void): void;
  setExecResult(matcher: ExecMatcher, result: ExecResult): void;

  // Faults.
  failNext(method: string, code: GrpcCode, count?: number, message?: string): void;
  delay(method: string, ms: number): void;
  /** true: close the socket (dropping all connections and streams); false: listen again. */
  refuse(refusing: boolean): Promise<void>;
  /** Refuses for `ms` (on the fake's clock); resolves once it listens again (also via refuse(false)) or stop(). */
  refuseConnections(ms: number): Promise<void>;
  /** Drops every connection and stream and listens again at once, keeping state (a containerd restart). */
  restart(): Promise<void>;

  stop(): Promise<void>;
}

function view(store: FakeStore): FakeCriState {
  return {
    get sandboxes(): FakeSandbox[] {
      return structuredClone([...store.sandboxes.values()]);
    },
    get containers(): FakeContainer[] {
      return structuredClone([...store.containers.values()]);
    },
    get images(): FakeImage[] {
      return structuredClone([...store.images.values()]);
    },
    sandbox: (id) => structuredClone(store.sandboxes.get(id)),
    container: (id) => structuredClone(store.containers.get(id)),
  };
}

export async function startFakeCri(options: FakeCriOptions = {}): Promise<FakeCri> {
  const clock = options.clock ?? realClock;
  const behaviors = new Behaviors(clock);
  const hub = new EventHub();
  const store: FakeStore = new FakeStore(clock, options.random ?? cryptoRandom, behaviors, (containerId, sandboxId, type) =>
    hub.publish(buildEvent(store, containerId, sandboxId, type, store.nowNs())),
  );
  behaviors.exit = (id, code, exit) => {
    if (store.containers.has(id)) store.exitContainer(id, code, exit);
  };
  for (const ref of options.images ?? DEFAULT_IMAGES) addImage(store.images, ref);

  const conditions: RuntimeConditions = { runtimeReady: true, networkReady: true };
  const pullable: Pullability = new Map();
  const pullAuth: PullAuth = new Map();
  const faults = new FaultPlan();
  const control: EventsControl = { unimplemented: false };
  const calls: RecordedCall[] = [];
  const callArrived = new Condition();
  const whenCalled = (method: string, count = 1, signal?: AbortSignal) =>
    callArrived.until(() => calls.filter((c) => c.method === method).length >= count, signal);
  const handlers: Record<string, (request: never, signal: AbortSignal) => unknown> = {
    ...runtimeHandlers(store, behaviors, conditions, clock),
    ...imageHandlers(store, pullable, clock, pullAuth),
  };

  /** Records the call, then applies the injected delay and failure; returns the failure, if any. */
  async function admit(method: DescMethod, request: Message, signal: AbortSignal): Promise<FakeCriError | undefined> {
    calls.push({ method: method.name, service: method.parent.name as RecordedCall["service"], request, at: clock.now() });
    callArrived.notify();
    const ms = faults.delayFor(method.name);
    if (ms > 0) await clock.sleep(ms, signal);
    return faults.take(method.name);
  }

  const dispatch: CallHandler = {
    async unary(method, request, signal) {
      const injected = await admit(method, request, signal);
      if (injected) throw injected;
      const result = await handlers[method.localName](request as never, signal);
      return create(method.output, result as never) as Message;
    },
    stream(method, request, sink) {
      void (async () => {
        const injected = await admit(method, request, sink.signal).catch(() => undefined);
        if (sink.signal.aborted) return;
        if (injected) return sink.fail(injected.code, injected.message);
        serveEvents(hub, control, sink);
      })();
    },
  };

  const dir = mkdtempSync(join(tmpdir(), "fakecri-"));
  const socketPath = join(dir, "cri.sock");
  const listener = new GrpcListener(socketPath, [RuntimeService, ImageService], dispatch);
  await listener.listen();
  let refusalTimer: Timer | undefined;
  /** Settles the promise refuseConnections returned, when something else ends the refusal first. */
  let settleRefusal: (() => void) | undefined;
  const endRefusal = () => {
    refusalTimer?.cancel();
    refusalTimer = undefined;
    settleRefusal?.();
    settleRefusal = undefined;
  };

  const fake: FakeCri = {
    endpoint: `unix://${socketPath}`,
    socketPath,
    state: view(store),
    calls,
    callNames: () => calls.map((c) => c.method),
    clearCalls: () => void calls.splice(0),
    whenCalled,
    events: Object.defineProperties(control, {
      history: { get: () => hub.history, enumerable: true },
      subscribers: { get: () => hub.subscribers, enumerable: true },
      whenSubscribers: { value: (n = 1, signal?: AbortSignal) => hub.whenSubscribers(n, signal) },
    }) as FakeCri["events"],
    faults,
    exitContainer: (id, exitCode, exit) => store.exitContainer(id, exitCode, exit),
    killSandbox: (id) => store.killSandbox(id),
    removeContainerBehindTheBack: (id) => store.removeBehindTheBack(id),
    setNetworkReady: (ready) => void (conditions.networkReady = ready),
    setRuntimeReady: (ready) => void (conditions.runtimeReady = ready),
    addImage: (ref, opts) => structuredClone(addImage(store.images, ref, opts)),
    removeImage: (ref) => removeImage(store.images, ref),
    setPullable: (ref, ok) => void pullable.set(normalizeImageRef(ref), ok),
    requirePullAuth: (ref, username, password) => void pullAuth.set(normalizeImageRef(ref), `${username}:${password}`),
    setContainerBehavior: (matcher, behavior) => behaviors.setContainerBehavior(matcher, behavior),
    onCreate: (fn) => behaviors.onCreate(fn),
    setExecResult: (matcher, result) => behaviors.setExecResult(matcher, result),
    failNext: (method, code, count, message) => faults.failNext(method, code, count, message),
    delay: (method, ms) => faults.delay(method, ms),
    async refuse(refusing) {
      refusalTimer?.cancel();
      refusalTimer = undefined;
      if (refusing) return listener.close();
      await listener.listen();
      endRefusal();
    },
    refuseConnections(ms) {
      endRefusal();
      listener.close();
      return new Promise((resolve, reject) => {
        settleRefusal = resolve;
        refusalTimer = clock.setTimer(ms, () => {
          refusalTimer = undefined;
          settleRefusal = undefined;
          listener.listen().then(resolve, reject);
        });
      });
    },
    async restart() {
      listener.close();
      await listener.listen();
    },
    async stop() {
      endRefusal();
      behaviors.cancelAll();
      listener.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return fake;
}
