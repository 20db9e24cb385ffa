/**
 * The node startup durations (pkg/kubelet/util/node_startup_latency_tracker.go): from the host's
 * boot to bunlet's start, from the start to the first registration attempt, the registration
 * itself (only when this run created the Node), from the Node's creation to its first Ready
 * status, and boot to Ready in total. Each gauge is set once, when its end is reached; a node
 * that was registered before (bunlet restarted) keeps them at 0, as the kubelet does.
 */
import type { Clock } from "../lib/index.ts";

interface Gauge {
  set(value: number): void;
}

export interface NodeStartupMetrics {
  nodeStartupPreKubelet: Gauge;
  nodeStartupPreRegistration: Gauge;
  nodeStartupRegistration: Gauge;
  nodeStartupPostRegistration: Gauge;
  nodeStartup: Gauge;
}

export class NodeStartupLatencyTracker {
  readonly #startMs: number;
  #attemptMs: number | undefined;
  #registeredMs: number | undefined;
  #readyMs: number | undefined;

  /** bootMs: when the host booted (/proc/stat btime), undefined when unknown. */
  constructor(private readonly deps: { clock: Clock; metrics: NodeStartupMetrics; bootMs: number | undefined }) {
    this.#startMs = deps.clock.now();
  }

  recordAttemptRegisterNode(): void {
    this.#attemptMs ??= this.deps.clock.now();
  }

  /** The Node was created by this run (not found already registered). */
  recordRegisteredNewNode(): void {
    if (this.#attemptMs === undefined || this.#registeredMs !== undefined) return;
    this.#registeredMs = this.deps.clock.now();
    const { metrics, bootMs } = this.deps;
    if (bootMs !== undefined) metrics.nodeStartupPreKubelet.set((this.#startMs - bootMs) / 1000);
    metrics.nodeStartupPreRegistration.set((this.#attemptMs - this.#startMs) / 1000);
    metrics.nodeStartupRegistration.set((this.#registeredMs - this.#attemptMs) / 1000);
  }

  /** A node status with Ready=True was accepted. */
  recordNodeReady(): void {
    if (this.#registeredMs === undefined || this.#readyMs !== undefined) return;
    this.#readyMs = this.deps.clock.now();
    const { metrics, bootMs } = this.deps;
    metrics.nodeStartupPostRegistration.set((this.#readyMs - this.#registeredMs) / 1000);
    if (bootMs !== undefined) metrics.nodeStartup.set((this.#readyMs - bootMs) / 1000);
  }
}
