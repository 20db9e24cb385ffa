/**
 * Lifecycle hook runners (the kubelet's lifecycle.handlerRunner): exec through CRI ExecSync, an
 * HTTP GET to the pod (or a given host), or a sleep on the injected clock. Each resolves when the
 * hook succeeded and throws a HookError saying what failed otherwise. For HTTP only a transport
 * failure counts, as for the kubelet: any HTTP status is an answer.
 */
import type { ContainerPort, LifecycleHandler } from "../api/index.ts";
import { resolveContainerPort } from "../container/index.ts";
import type { CriClient } from "../cri/index.ts";
import { anySignal, type Clock } from "../lib/index.ts";

export class HookError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "HookError";
  }
}

export interface HookOptions {
  cri: CriClient;
  containerId: string;
  /** Default host of httpGet hooks. */
  podIP: string;
  signal?: AbortSignal;
  /** 0 or absent: no limit of our own (postStart runs until it ends or the signal aborts). */
  timeoutMs?: number;
  clock: Clock;
  /** The container's ports, to resolve a named httpGet port. */
  ports?: ContainerPort[];
  /** A sleep hook was cut short (the container stopped, or the grace period ran out). */
  onSleepTerminatedEarly?: () => void;
}

export async function runHandler(handler: LifecycleHandler, opts: HookOptions): Promise<void> {
  if (handler.exec) return runExec(handler.exec.command ?? [], opts);
  if (handler.httpGet) return runHttpGet(handler.httpGet, opts);
  if (handler.sleep) return runSleep(handler.sleep.seconds, opts);
  throw new HookError(`invalid lifecycle handler ${JSON.stringify(handler)}: exec, httpGet or sleep is required (tcpSocket is not supported)`);
}

async function runExec(command: string[], opts: HookOptions): Promise<void> {
  const timeoutSeconds = opts.timeoutMs ? Math.ceil(opts.timeoutMs / 1000) : 0;
  let res;
  try {
    res = await opts.cri.runtime.execSync(
      { containerId: opts.containerId, cmd: command, timeout: BigInt(timeoutSeconds) },
      { signal: opts.signal },
    );
  } catch (err) {
    throw new HookError(`Exec lifecycle hook (${JSON.stringify(command)}) failed - error: ${(err as Error).message}`, { cause: err });
  }
  if (res.exitCode !== 0) {
    const output = new TextDecoder().decode(res.stdout) + new TextDecoder().decode(res.stderr);
    throw new HookError(
      `Exec lifecycle hook (${JSON.stringify(command)}) failed - error: command exited with ${res.exitCode}, message: ${JSON.stringify(output)}`,
    );
  }
}

async function runHttpGet(action: NonNullable<LifecycleHandler["httpGet"]>, opts: HookOptions): Promise<void> {
  const host = action.host || opts.podIP;
  if (!host) throw new HookError("HTTP lifecycle hook failed - error: the pod has no IP and the hook names no host");
  const port = resolveContainerPort(action.port, { ports: opts.ports });
  if (port === undefined) throw new HookError(`couldn't find port ${JSON.stringify(action.port)} in the container's ports`);
  const scheme = (action.scheme ?? "HTTP").toLowerCase();
  const path = action.path ? (action.path.startsWith("/") ? action.path : `/${action.path}`) : "/";
  const url = `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}${path}`;
  const headers = new Headers({ "User-Agent": "kube-lifecycle/bunlet" });
  for (const h of action.httpHeaders ?? []) headers.set(h.name, h.value);

  const timeout = new AbortController();
  const timer = opts.timeoutMs ? opts.clock.setTimer(opts.timeoutMs, () => timeout.abort(new Error(`timed out after ${opts.timeoutMs}ms`))) : undefined;
  const signal = anySignal(opts.signal, timeout.signal);
  try {
    // The kubelet does not verify lifecycle HTTPS certificates; Bun's fetch takes the tls option.
    const res = await fetch(url, { headers, signal, tls: { rejectUnauthorized: false } } as RequestInit);
    await res.body?.cancel();
  } catch (err) {
    const cause = timeout.signal.aborted ? (timeout.signal.reason as Error) : (err as Error);
    throw new HookError(`HTTP lifecycle hook (${path}) failed - error: GET ${url}: ${cause.message}`, { cause });
  } finally {
    timer?.cancel();
  }
}

async function runSleep(seconds: number, opts: HookOptions): Promise<void> {
  try {
    await opts.clock.sleep(seconds * 1000, opts.signal);
  } catch (err) {
    opts.onSleepTerminatedEarly?.();
    throw new HookError("container terminated before sleep hook finished", { cause: err });
  }
}
