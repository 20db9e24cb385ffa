import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { renderCniConflist, type CniConflistOptions } from "./cni.ts";
import { configVersionFor, PAUSE_IMAGE, renderContainerdConfig, renderRegistryHosts, type ContainerdConfigOptions } from "./config.ts";
import { containerdPaths, type ContainerdPaths } from "./paths.ts";
import { runContainerdLogRotation } from "./log-rotation.ts";
import { nextContainerdState, type ManagedContainerdEvent, type ManagedContainerdState } from "./lifecycle.ts";
import { findContainerd, logTail, readContainerdVersion, spawnContainerd, stalePid, type ContainerdChild } from "./process.ts";
import { preloadImages } from "./preload.ts";
import { ensureSandboxImage } from "./sandbox-image.ts";
import { applyConfigTemplate } from "./template.ts";
import { waitReady } from "./readiness.ts";
import { terminateChild, terminatePid } from "./terminate.ts";
import { Backoff, delay, realClock, type BackoffOptions } from "../lib/index.ts";
import type { Clock, Logger, ReadinessProbe } from "./types.ts";

export interface ManagedContainerdOptions extends ContainerdConfigOptions, Omit<CniConflistOptions, "rootDir"> {
  log: Logger;
  /** A CRI Version call against `unix://<socket>`; see `ManagedContainerd.endpoint`. */
  probe: ReadinessProbe;
  /** Aborting it cancels start-up, or stops containerd once started. */
  signal?: AbortSignal;
  /**
   * Default: `containerd` found on PATH (plus the usual sbin directories). Its `--version` picks
   * the config version (2 for 1.x, 3 for 2.x); its directory comes first on its PATH (its shim).
   */
  containerdPath?: string;
  clock?: Clock;
  readyTimeoutMs?: number;
  readyPollMs?: number;
  stopTimeoutMs?: number;
  /** Delay before restarting a containerd that exited on its own: 1 s doubling to 30 s, reset after 60 s. */
  restartBackoff?: BackoffOptions;
  /** The log's cap (containerd.log rotated by copy and truncate); no cap when absent. */
  logMaxSize?: number;
  logMaxFiles?: number;
  /** Image tarballs imported into k8s.io once containerd is ready (k3s's agent/images). Default `<rootDir>/images`. */
  imagesDir?: string;
  /**
   * "write" (the default) renders the bridge conflist now; "later" leaves the conf dir as it is
   * (a conflist from the last run stays in use), because the pod CIDR comes from the Node and the
   * network area writes it (writeCniConflist) once it is known. Nothing is written with cniConfDir.
   */
  cniConflist?: "write" | "later";
}

export interface ManagedContainerd extends AsyncDisposable {
  /** `unix:///…/containerd.sock`, for `--container-runtime-endpoint`-style consumers. */
  readonly endpoint: string;
  readonly socketPath: string;
  readonly paths: ContainerdPaths;
  readonly state: ManagedContainerdState;
  /** The current containerd process, if one is running. */
  readonly pid: number | undefined;
  /** How many times containerd was restarted after exiting on its own. */
  readonly restarts: number;
  /** SIGTERM to containerd only (shims and containers keep running), SIGKILL after the timeout. */
  stop(): Promise<void>;
}

const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 1000, maxMs: 30_000, resetAfterMs: 60_000 };

function writeFileAtomic(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** Writes the config and conflist, starts containerd, and resolves once the probe answers. */
export async function startManagedContainerd(opts: ManagedContainerdOptions): Promise<ManagedContainerd> {
  const { log } = opts;
  const clock = opts.clock ?? realClock;
  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  const readyPollMs = opts.readyPollMs ?? 100;
  const stopTimeoutMs = opts.stopTimeoutMs ?? 10_000;
  const backoff = new Backoff(clock, opts.restartBackoff ?? DEFAULT_BACKOFF);
  const binary = findContainerd(opts.containerdPath);
  const paths = containerdPaths(opts.rootDir);
  const endpoint = `unix://${paths.socketPath}`;
  opts.signal?.throwIfAborted();

  for (const dir of [paths.dir, paths.root, paths.state, paths.cniConfDir, paths.cniIpamDir, dirname(paths.socketPath)]) {
    mkdirSync(dir, { recursive: true, mode: 0o711 });
  }
  if (paths.socketFallbackReason) log.warn("containerd socket moved to a shorter path", { reason: paths.socketFallbackReason });
  const { version, configVersion } = configVersionFor(await readContainerdVersion(binary, opts.signal));
  log.info("containerd binary", { binary, version, configVersion });
  const base = renderContainerdConfig({ ...opts, configVersion });
  // What {{ template "base" . }} stands for, beside the user's template for them to read.
  if (existsSync(paths.configTemplateFile)) writeFileAtomic(paths.configBaseFile, base);
  else rmSync(paths.configBaseFile, { force: true });
  const config = applyConfigTemplate(paths.configTemplateFile, base);
  if (config.fromTemplate) log.info("containerd config from the user's template", { template: paths.configTemplateFile, base: paths.configBaseFile });
  writeFileAtomic(paths.configFile, config.text);
  if (configVersion === 3) {
    // Rewrites bunlet's own hosts.toml files; a user's, for other registries, are kept.
    for (const { host, text } of renderRegistryHosts(opts.registryMirrors)) {
      mkdirSync(join(paths.registryHostsDir, host), { recursive: true });
      writeFileAtomic(join(paths.registryHostsDir, host, "hosts.toml"), text);
    }
  }
  if (opts.cniConfDir) log.info("CNI configuration from the host's conf dir", { cniConfDir: opts.cniConfDir, cniBinDir: opts.cniBinDir });
  else if (opts.cniConflist !== "later") writeFileAtomic(paths.cniConflistFile, renderCniConflist(opts));

  const stale = stalePid(paths.pidFile, paths.configFile);
  if (stale !== undefined) {
    log.warn("a containerd from a previous bunlet run is still running; stopping it", { pid: stale });
    await terminatePid(stale, { clock, timeoutMs: stopTimeoutMs, log });
  }

  let state: ManagedContainerdState = "starting";
  /** Every state change goes through the table in lifecycle.ts. */
  const on = (event: ManagedContainerdEvent) => {
    state = nextContainerdState(state, event);
  };
  let child: ContainerdChild | undefined;
  let restarts = 0;
  const lifetime = new AbortController();

  const spawnOne = (): ContainerdChild => {
    const c = spawnContainerd(binary, paths.configFile, paths.logFile);
    writeFileSync(paths.pidFile, `${c.pid}\n`);
    child = c;
    void c.exited.then(() => {
      if (child === c) child = undefined;
    });
    log.info("containerd started", { pid: c.pid, config: paths.configFile, endpoint, log: paths.logFile });
    return c;
  };

  /** Waits for the probe; aborted early if `c` exits or the lifetime ends. */
  const waitChildReady = async (c: ContainerdChild, extra?: AbortSignal) => {
    const exitCtl = new AbortController();
    let exit: Awaited<ContainerdChild["exited"]> | undefined;
    void c.exited.then((e) => {
      exit = e;
      exitCtl.abort(new Error("containerd exited"));
    });
    const signals = [exitCtl.signal, lifetime.signal, ...(extra ? [extra] : [])];
    try {
      const result = await waitReady({ probe: opts.probe, clock, timeoutMs: readyTimeoutMs, intervalMs: readyPollMs, signal: AbortSignal.any(signals) });
      return { ...result, exit };
    } catch (err) {
      if (exit) return { ready: false as const, attempts: 0, lastError: undefined, exit };
      throw err;
    }
  };

  // First start: failures are reported to the caller, not retried.
  const first = spawnOne();
  let result: Awaited<ReturnType<typeof waitChildReady>>;
  try {
    result = await waitChildReady(first, opts.signal);
  } catch (err) {
    await terminateChild(first, { clock, timeoutMs: stopTimeoutMs, log });
    rmSync(paths.pidFile, { force: true });
    throw err;
  }
  if (!result.ready) {
    await terminateChild(first, { clock, timeoutMs: stopTimeoutMs, log });
    rmSync(paths.pidFile, { force: true });
    const why = result.exit
      ? `containerd exited during start-up (code ${result.exit.code}, signal ${result.exit.signal})`
      : `containerd did not answer on ${endpoint} within ${readyTimeoutMs} ms (last error: ${String(result.lastError)})`;
    throw new Error(`${why}; see ${paths.logFile}, which ends with:\n${logTail(paths.logFile)}`);
  }
  on("ready");
  log.info("containerd is ready", { endpoint, pid: first.pid, probes: result.attempts });
  preloadImages({
    dir: opts.imagesDir ?? join(opts.rootDir, "images"),
    socketPath: paths.socketPath,
    stampFile: join(paths.dir, "preloaded-images.json"),
    log,
  });
  ensureSandboxImage({ socketPath: paths.socketPath, sandboxImage: opts.sandboxImage ?? PAUSE_IMAGE, bundledImage: PAUSE_IMAGE, log });

  // Restarts containerd whenever it exits on its own, with backoff.
  const supervise = async () => {
    let current = first;
    for (;;) {
      const exit = await current.exited;
      if (lifetime.signal.aborted) return;
      const delayMs = backoff.next("containerd");
      on("exited");
      log.error("containerd exited unexpectedly; restarting it", {
        code: exit.code,
        signal: exit.signal,
        restartInMs: delayMs,
        log: paths.logFile,
        lastLogLine: logTail(paths.logFile, 1),
      });
      if (!(await delay(clock, delayMs, lifetime.signal))) return;
      try {
        current = spawnOne();
      } catch (err) {
        // `current` has exited, so the loop comes straight back here after a longer backoff.
        log.error("could not start containerd; retrying", { binary, err });
        continue;
      }
      restarts++;
      try {
        const again = await waitChildReady(current);
        if (again.ready) {
          on("ready");
          log.info("containerd is ready again", { pid: current.pid, restarts });
        } else if (!again.exit) {
          log.warn("restarted containerd does not answer yet", { endpoint, log: paths.logFile, lastError: String(again.lastError) });
        }
      } catch {
        return; // waitChildReady throws only once the lifetime ended (stop() was called)
      }
    }
  };
  const supervisor = supervise();
  const logRotation =
    opts.logMaxSize !== undefined && opts.logMaxSize > 0
      ? runContainerdLogRotation({ logFile: paths.logFile, maxSize: opts.logMaxSize, maxFiles: opts.logMaxFiles ?? 1, clock, log, signal: lifetime.signal })
      : Promise.resolve();

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      on("stop");
      lifetime.abort(new Error("containerd is stopping"));
      opts.signal?.removeEventListener("abort", onAbort);
      // The supervisor sees the exit, notices the lifetime ended, and returns without a restart.
      if (child) await terminateChild(child, { clock, timeoutMs: stopTimeoutMs, log });
      await supervisor;
      await logRotation;
      rmSync(paths.pidFile, { force: true });
      on("stopped");
      log.info("containerd stopped; containers keep running in their shims", { endpoint });
    })());
  const onAbort = () => void stop();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();

  return {
    endpoint,
    socketPath: paths.socketPath,
    paths,
    get state() {
      return state;
    },
    get pid() {
      return child?.pid;
    },
    get restarts() {
      return restarts;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
