/**
 * The agent's connection to its container runtime: the embedded containerd when no endpoint is
 * configured (as k3s does), else the given CRI endpoint; then a CRI client whose calls feed the
 * kubelet's runtime operation metrics, and a wait until the runtime answers Version. Only the
 * first wait is bounded (30 s, maxWaitForContainerRuntime): a runtime that goes away later is the
 * runtime health check's business, and bunlet keeps running.
 */
import { containerdPaths, startManagedContainerd, type ManagedContainerd } from "../containerd/index.ts";
import { createCriClient, type CriClient } from "../cri/index.ts";
import { delay, type Clock, type Logger } from "../lib/index.ts";
import type { Metrics } from "../metrics/index.ts";

const MAX_WAIT_FOR_CONTAINER_RUNTIME_MS = 30_000;
const VERSION_ATTEMPT_TIMEOUT_MS = 2_000;
const VERSION_RETRY_MS = 200;

/** The runtime did not answer in time at start-up; names the endpoint and the last error. */
export class RuntimeUnavailableError extends Error {
  readonly endpoint: string;
  constructor(endpoint: string, waitedMs: number, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`container runtime at ${endpoint} did not answer a CRI Version call within ${waitedMs / 1000}s: ${why}`, { cause });
    this.name = "RuntimeUnavailableError";
    this.endpoint = endpoint;
  }
}

export interface RuntimeConnection {
  readonly endpoint: string;
  readonly cri: CriClient;
  /** Closes the client, then stops the embedded containerd if bunlet started one (containers keep running). */
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** A CRI endpoint; "" starts the embedded containerd under `<rootDir>/containerd`. */
  endpoint: string;
  rootDir: string;
  runtimeRequestTimeoutMs: number;
  clock: Clock;
  log: Logger;
  metrics: Pick<Metrics, "runtimeOperations" | "runtimeOperationsErrors" | "runtimeOperationsDuration">;
  /** Aborting it cancels the start-up. */
  signal: AbortSignal;
  waitTimeoutMs?: number;
  /**
   * The embedded containerd's CNI network; "" podSubnet keeps its default. `conflist: "later"`
   * leaves the conflist to the network area (the range comes from the Node); a cniConfDir is the
   * host's (a cluster CNI's), so bunlet renders nothing.
   */
  network?: { podSubnet: string; bridgeName: string; cniConfDir?: string; cniBinDir?: string; conflist?: "write" | "later" };
  /** The embedded containerd's binary; "" or undefined = containerd on PATH. */
  containerdPath?: string;
  /** The embedded containerd's runc SystemdCgroup option (cgroupDriver systemd). */
  systemdCgroup?: boolean;
  /** The embedded containerd's sandbox image (--pod-infra-container-image); "" or undefined = its default. */
  sandboxImage?: string;
  /** The embedded containerd's log: level, and its cap (size and files). */
  containerdLog?: { level: string; maxSize: number; maxFiles: number };
}

export async function connectRuntime(opts: ConnectOptions): Promise<RuntimeConnection> {
  const { clock, log, metrics } = opts;
  const embedded = opts.endpoint === "";
  const endpoint = embedded ? `unix://${containerdPaths(opts.rootDir).socketPath}` : opts.endpoint;
  const cri = createCriClient({
    endpoint,
    requestTimeoutMs: opts.runtimeRequestTimeoutMs,
    observer: {
      observe(operation, seconds, failed) {
        metrics.runtimeOperations.inc({ operation_type: operation });
        metrics.runtimeOperationsDuration.observe({ operation_type: operation }, seconds);
        if (failed) metrics.runtimeOperationsErrors.inc({ operation_type: operation });
      },
    },
  });

  let managed: ManagedContainerd | undefined;
  if (!embedded && opts.sandboxImage) {
    log.warn("--pod-infra-container-image applies to the embedded containerd only; the runtime's own sandbox image setting applies", {
      endpoint,
      podInfraContainerImage: opts.sandboxImage,
    });
  }
  if (embedded) {
    // Start-up only: once running, the embedded containerd is stopped by close(), after
    // everything that uses it, never directly by the agent's signal.
    const startup = new AbortController();
    const onAbort = () => startup.abort(opts.signal.reason);
    opts.signal.addEventListener("abort", onAbort, { once: true });
    if (opts.signal.aborted) onAbort();
    try {
      managed = await startManagedContainerd({
        rootDir: opts.rootDir,
        bridgeName: opts.network?.bridgeName || undefined,
        podSubnet: opts.network?.podSubnet || undefined,
        cniConfDir: opts.network?.cniConfDir || undefined,
        cniBinDir: opts.network?.cniBinDir || undefined,
        cniConflist: opts.network?.conflist,
        containerdPath: opts.containerdPath || undefined,
        systemdCgroup: opts.systemdCgroup,
        sandboxImage: opts.sandboxImage || undefined,
        logLevel: opts.containerdLog?.level,
        logMaxSize: opts.containerdLog?.maxSize,
        logMaxFiles: opts.containerdLog?.maxFiles,
        log: log.with({ component: "containerd" }),
        clock,
        signal: startup.signal,
        probe: async (signal) => {
          await cri.runtime.version({}, { signal, timeoutMs: VERSION_ATTEMPT_TIMEOUT_MS });
        },
      });
    } catch (err) {
      cri.close();
      throw err;
    } finally {
      opts.signal.removeEventListener("abort", onAbort);
    }
  }

  const close = async () => {
    cri.close();
    await managed?.stop();
  };
  try {
    const timeoutMs = opts.waitTimeoutMs ?? MAX_WAIT_FOR_CONTAINER_RUNTIME_MS;
    // A block body: a logger call in tail position would lose this frame, and with it file:line.
    const version = await waitForRuntime(cri, endpoint, clock, opts.signal, timeoutMs, (err) => {
      log.warn("Container runtime does not answer yet; retrying, bunlet exits if it still does not answer", {
        endpoint,
        err,
        giveUpAfterSeconds: timeoutMs / 1000,
      });
    });
    log.info("Container runtime is answering", { endpoint, embedded, ...version });
  } catch (err) {
    await close();
    throw err;
  }
  return { endpoint, cri, close };
}

/**
 * Retries Version until it answers or timeoutMs passes (then RuntimeUnavailableError); onWaiting
 * hears about the first failure, so an unreachable runtime is reported at once, not after 30 s.
 */
export async function waitForRuntime(
  cri: Pick<CriClient, "runtime">,
  endpoint: string,
  clock: Clock,
  signal: AbortSignal,
  timeoutMs: number,
  onWaiting?: (err: unknown) => void,
): Promise<{ runtimeName: string; runtimeVersion: string }> {
  const start = clock.now();
  let lastError: unknown;
  for (;;) {
    signal.throwIfAborted();
    try {
      const left = Math.max(1, start + timeoutMs - clock.now());
      const v = await cri.runtime.version({}, { signal, timeoutMs: Math.min(VERSION_ATTEMPT_TIMEOUT_MS, left) });
      return { runtimeName: v.runtimeName, runtimeVersion: v.runtimeVersion };
    } catch (err) {
      signal.throwIfAborted();
      if (lastError === undefined) onWaiting?.(err);
      lastError = err;
    }
    if (clock.now() - start >= timeoutMs) throw new RuntimeUnavailableError(endpoint, timeoutMs, lastError);
    if (!(await delay(clock, VERSION_RETRY_MS, signal))) signal.throwIfAborted();
  }
}
