/**
 * The fake runtime's in-memory state and the state transitions containerd 1.6's CRI plugin makes:
 * sandboxes READY → NOTREADY → removed, containers CREATED → RUNNING → EXITED → removed. Every
 * transition is reported through `onChange` (container id, sandbox id, event type), which is what
 * the events hub turns into ContainerEventResponses, exactly where containerd 1.7 emits them.
 */
import {
  ContainerEventType,
  ContainerState,
  GrpcCode,
  NamespaceMode,
  PodSandboxState,
  type ContainerConfig,
  type PodSandboxConfig,
} from "../../src/cri/index.ts";
import type { Clock } from "../../src/lib/index.ts";
import { FakeCriError, notFound, unknown } from "./errors.ts";
import { newId, resolveId, type RandomBytes } from "./ids.ts";
import { findImage, type FakeImage } from "./images.ts";
import type { FakeContainer, FakeSandbox } from "./types.ts";

export type ChangeListener = (containerId: string, sandboxId: string, type: ContainerEventType) => void;

/** What the store asks the behaviour rules about a container. */
export interface ContainerHooks {
  /** Exit code when StopContainer signals the container with a grace period (137 = needed SIGKILL). */
  stopExitCode(container: FakeContainer): number;
  created(container: FakeContainer): void;
  started(container: FakeContainer): void;
  /** The container left RUNNING or disappeared: cancel anything scheduled for it. */
  finished(container: FakeContainer): void;
}

export interface ExitOptions {
  reason?: string;
  message?: string;
  oom?: boolean;
}

const SIGKILL_EXIT = 137;
const POD_SUBNET_PREFIX = "10.244.0.";

export class FakeStore {
  readonly sandboxes = new Map<string, FakeSandbox>();
  readonly containers = new Map<string, FakeContainer>();
  readonly images = new Map<string, FakeImage>();
  /** Reserved names (containerd's name index): name → id. */
  readonly #names = new Map<string, string>();
  #lastNs = 0n;
  #nextIp = 2;

  constructor(
    private readonly clock: Clock,
    private readonly random: RandomBytes,
    private readonly hooks: ContainerHooks,
    private readonly onChange: ChangeListener,
  ) {}

  /** Nanoseconds now, strictly increasing so records created in the same millisecond still sort. */
  nowNs(): bigint {
    const ns = BigInt(Math.floor(this.clock.now())) * 1_000_000n;
    this.#lastNs = ns > this.#lastNs ? ns : this.#lastNs + 1n;
    return this.#lastNs;
  }

  sandbox(idOrPrefix: string): FakeSandbox {
    return this.sandboxes.get(resolveId(this.sandboxes.keys(), idOrPrefix, "sandbox"))!;
  }

  container(idOrPrefix: string): FakeContainer {
    return this.containers.get(resolveId(this.containers.keys(), idOrPrefix, "container"))!;
  }

  containersOf(sandboxId: string): FakeContainer[] {
    return [...this.containers.values()].filter((c) => c.podSandboxId === sandboxId);
  }

  // ---- sandboxes -------------------------------------------------------------------------

  runPodSandbox(config: PodSandboxConfig, runtimeHandler: string): string {
    const meta = config.metadata;
    if (!meta) throw unknown("failed to reserve sandbox name: sandbox config must include metadata");
    const id = newId(this.random);
    const name = [meta.name, meta.namespace, meta.uid, meta.attempt].join("_");
    this.#reserve(name, id, "sandbox");
    const nsOptions = config.linux?.securityContext?.namespaceOptions;
    const hostNetwork = nsOptions?.network === NamespaceMode.NODE;
    if (hostNetwork && config.hostname !== "") {
      // What runc answers when a host-network sandbox asks for its own hostname (the kubelet never does).
      throw unknown("failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to set hostname without a private UTS namespace: unknown");
    }
    const sandbox: FakeSandbox = {
      id,
      name: meta.name,
      uid: meta.uid,
      namespace: meta.namespace,
      attempt: meta.attempt,
      state: PodSandboxState.SANDBOX_READY,
      createdAt: this.nowNs(),
      labels: { ...config.labels },
      annotations: { ...config.annotations },
      runtimeHandler,
      ip: hostNetwork ? "" : this.#allocateIp(),
      hostNetwork,
      netnsClosed: false,
      namespaceOptions: nsOptions,
      logDirectory: config.logDirectory,
      hostname: config.hostname,
      config,
    };
    this.sandboxes.set(id, sandbox);
    this.onChange(id, id, ContainerEventType.CONTAINER_CREATED_EVENT);
    this.onChange(id, id, ContainerEventType.CONTAINER_STARTED_EVENT);
    return id;
  }

  /** Stops every container (SIGKILL, no grace: containerd stops them with timeout 0), then the sandbox. */
  stopPodSandbox(idOrPrefix: string): void {
    const sandbox = this.sandbox(idOrPrefix);
    for (const c of this.containersOf(sandbox.id)) {
      if (c.state === ContainerState.CONTAINER_RUNNING) this.#exit(c, SIGKILL_EXIT, {});
    }
    sandbox.netnsClosed = true;
    this.#sandboxExited(sandbox);
  }

  /** The sandbox's pause process died on its own: NOTREADY, containers untouched, network still set up. */
  killSandbox(idOrPrefix: string): void {
    this.#sandboxExited(this.sandbox(idOrPrefix));
  }

  removePodSandbox(idOrPrefix: string): void {
    const sandbox = this.#find(() => this.sandbox(idOrPrefix));
    // containerd: removing a sandbox that is already gone succeeds.
    if (!sandbox) return;
    // containerd 1.6 force-removes: a READY sandbox is stopped first.
    if (sandbox.state === PodSandboxState.SANDBOX_READY) this.stopPodSandbox(sandbox.id);
    for (const c of this.containersOf(sandbox.id)) this.removeContainer(c.id);
    this.sandboxes.delete(sandbox.id);
    this.#release(sandbox.id);
    this.onChange(sandbox.id, sandbox.id, ContainerEventType.CONTAINER_DELETED_EVENT);
  }

  #sandboxExited(sandbox: FakeSandbox): void {
    if (sandbox.state === PodSandboxState.SANDBOX_NOTREADY) return;
    sandbox.state = PodSandboxState.SANDBOX_NOTREADY;
    this.onChange(sandbox.id, sandbox.id, ContainerEventType.CONTAINER_STOPPED_EVENT);
  }

  #allocateIp(): string {
    const inUse = new Set([...this.sandboxes.values()].filter((s) => !s.netnsClosed).map((s) => s.ip));
    for (let i = 0; i < 253; i++) {
      const host = ((this.#nextIp - 2 + i) % 253) + 2;
      const ip = POD_SUBNET_PREFIX + host;
      if (!inUse.has(ip)) {
        this.#nextIp = host + 1;
        return ip;
      }
    }
    throw unknown("failed to setup network for sandbox: no IP addresses available in range set 10.244.0.2-10.244.0.254");
  }

  // ---- containers ------------------------------------------------------------------------

  createContainer(sandboxIdOrPrefix: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig | undefined): string {
    const sandbox = this.#find(() => this.sandbox(sandboxIdOrPrefix));
    if (!sandbox) throw notFound(`failed to find sandbox id "${sandboxIdOrPrefix}": not found`);
    if (sandbox.state !== PodSandboxState.SANDBOX_READY) {
      throw notFound(`failed to get sandbox container task: no running task found: task ${sandbox.id} not found: not found`);
    }
    const meta = config.metadata;
    if (!meta) throw unknown("container config must include metadata");
    const imageRef = config.image?.image ?? "";
    const image = findImage(this.images.values(), imageRef);
    if (!image) throw notFound(`failed to resolve image "${imageRef}": not found`);
    const id = newId(this.random);
    this.#reserve([meta.name, sandbox.name, sandbox.namespace, sandbox.uid, meta.attempt].join("_"), id, "container");
    const logDirectory = sandboxConfig?.logDirectory ?? "";
    const container: FakeContainer = {
      id,
      podSandboxId: sandbox.id,
      name: meta.name,
      attempt: meta.attempt,
      image: imageRef,
      imageId: image.id,
      state: ContainerState.CONTAINER_CREATED,
      createdAt: this.nowNs(),
      startedAt: 0n,
      finishedAt: 0n,
      exitCode: 0,
      reason: "",
      message: "",
      labels: { ...config.labels },
      annotations: { ...config.annotations },
      logPath: config.logPath && logDirectory ? `${logDirectory.replace(/\/+$/, "")}/${config.logPath}` : config.logPath,
      command: [...config.command],
      args: [...config.args],
      mounts: [...config.mounts],
      config,
    };
    this.containers.set(id, container);
    this.onChange(id, sandbox.id, ContainerEventType.CONTAINER_CREATED_EVENT);
    this.hooks.created(container);
    return id;
  }

  startContainer(idOrPrefix: string): void {
    const c = this.container(idOrPrefix);
    if (c.state !== ContainerState.CONTAINER_CREATED) {
      throw unknown(`failed to set starting state for container "${c.id}": container is in ${stateName(c.state)} state`);
    }
    const sandbox = this.sandboxes.get(c.podSandboxId);
    if (!sandbox || sandbox.state !== PodSandboxState.SANDBOX_READY) {
      // containerd marks a container that failed to start as exited (128, StartError), without an event.
      const message = `sandbox container "${c.podSandboxId}" is not running`;
      c.state = ContainerState.CONTAINER_EXITED;
      c.finishedAt = this.nowNs();
      c.exitCode = 128;
      c.reason = "StartError";
      c.message = message;
      throw unknown(message);
    }
    c.state = ContainerState.CONTAINER_RUNNING;
    c.startedAt = this.nowNs();
    this.onChange(c.id, c.podSandboxId, ContainerEventType.CONTAINER_STARTED_EVENT);
    this.hooks.started(c);
  }

  /** A container that is not running is left as it is (containerd logs and returns success). */
  stopContainer(idOrPrefix: string, timeoutSeconds: number): void {
    const c = this.container(idOrPrefix);
    if (c.state !== ContainerState.CONTAINER_RUNNING) return;
    this.#exit(c, timeoutSeconds > 0 ? this.hooks.stopExitCode(c) : SIGKILL_EXIT, {});
  }

  /** Removing a running container stops it first; removing an unknown one succeeds. */
  removeContainer(idOrPrefix: string): void {
    const c = this.#find(() => this.container(idOrPrefix));
    if (!c) return;
    if (c.state === ContainerState.CONTAINER_RUNNING) this.#exit(c, SIGKILL_EXIT, {});
    this.containers.delete(c.id);
    this.#release(c.id);
    this.hooks.finished(c);
    this.onChange(c.id, c.podSandboxId, ContainerEventType.CONTAINER_DELETED_EVENT);
  }

  /** The container's process exited by itself. */
  exitContainer(idOrPrefix: string, exitCode: number, options: ExitOptions = {}): void {
    const c = this.container(idOrPrefix);
    if (c.state !== ContainerState.CONTAINER_RUNNING) {
      throw new Error(`fake CRI: exitContainer(${c.id}): container is ${stateName(c.state)}, not running`);
    }
    this.#exit(c, exitCode, options);
  }

  /** Someone (crictl, a reboot) deleted the container without the agent: no event, it is just gone. */
  removeBehindTheBack(idOrPrefix: string): void {
    const c = this.container(idOrPrefix);
    this.containers.delete(c.id);
    this.#release(c.id);
    this.hooks.finished(c);
  }

  #exit(c: FakeContainer, exitCode: number, options: ExitOptions): void {
    c.state = ContainerState.CONTAINER_EXITED;
    c.finishedAt = this.nowNs();
    c.exitCode = exitCode;
    c.reason = options.reason ?? (options.oom ? "OOMKilled" : exitCode === 0 ? "Completed" : "Error");
    c.message = options.message ?? "";
    this.hooks.finished(c);
    this.onChange(c.id, c.podSandboxId, ContainerEventType.CONTAINER_STOPPED_EVENT);
  }

  /** The lookup's result, or undefined when it is NOT_FOUND (other errors propagate). */
  #find<T>(lookup: () => T): T | undefined {
    try {
      return lookup();
    } catch (err) {
      if (err instanceof FakeCriError && err.code === GrpcCode.NOT_FOUND) return undefined;
      throw err;
    }
  }

  #reserve(name: string, id: string, what: string): void {
    const holder = this.#names.get(name);
    if (holder !== undefined) throw unknown(`failed to reserve ${what} name "${name}": name "${name}" is reserved for "${holder}"`);
    this.#names.set(name, id);
  }

  #release(id: string): void {
    for (const [name, holder] of this.#names) if (holder === id) this.#names.delete(name);
  }
}

export function stateName(state: ContainerState): string {
  return ContainerState[state] ?? String(state);
}
