/**
 * bunlet's entry point: flags and config file → JavaScriptCore's options (the built binary
 * re-executes itself once) → the root-dir lock → startAgent → run until
 * SIGTERM/SIGINT; or `bunlet crictl ...`, the CRI tool. Nothing else lives here. Bad input exits 2
 * with one line; a root dir in use or a failed start exits 1 with the reason.
 */
import { runCrictl } from "./cli/index.ts";
import { ConfigError, logConfigNotices, parseArgs } from "./config/index.ts";
import { checkCgroupDriver, evictionThresholds, lockRootDir, restartWithJscOptions, RootDirInUseError, setMaxOpenFiles, type RootLock } from "./boot/index.ts";
import { startAgent } from "./kubelet/index.ts";
import { createLogger, realClock } from "./lib/index.ts";

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "crictl") return crictl(argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (parsed.kind !== "run") {
    process.stdout.write(`${parsed.text}\n`);
    return 0;
  }
  // The agent runs with its JavaScriptCore options (boot/jsc-options.ts): the built binary
  // re-executes itself here once, with the same arguments, before it touches anything.
  restartWithJscOptions({
    env: process.env,
    argv: process.argv,
    argv0: process.argv0,
    execPath: process.execPath,
    execve: (file, args, env) => {
      if (!process.execve) throw new Error("this runtime has no process.execve");
      process.execve(file, args, env);
    },
    warn: (line) => void process.stderr.write(`${line}\n`),
  });
  const { config } = parsed;
  const log = createLogger({ format: config.loggingFormat, verbosity: config.verbosity });
  logConfigNotices(log, parsed.notices);
  // Settings that can only be judged whole (eviction thresholds), before anything is touched:
  // one line, exit 2, as a bad flag.
  try {
    evictionThresholds(config);
    checkCgroupDriver(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 2;
  }

  const shutdown = new AbortController();
  let signals = 0;
  const onSignal = (name: string) => {
    signals++;
    if (signals > 1) {
      log.warn("second signal: exiting now; pods keep running", { signal: name });
      process.exit(130);
    }
    // The agent logs the shutdown, with this reason.
    shutdown.abort(new Error(`received ${name}`));
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));

  // First thing that touches the root dir: one bunlet per root dir.
  let lock: RootLock;
  try {
    lock = await lockRootDir({
      rootDir: config.rootDir,
      lockFile: config.lockFile,
      exitOnLockContention: config.exitOnLockContention,
      clock: realClock,
      log,
      signal: shutdown.signal,
    });
  } catch (err) {
    if (shutdown.signal.aborted) return 0;
    if (err instanceof RootDirInUseError) {
      log.error(`bunlet: ${err.message}`, { rootDir: err.rootDir, holderPid: err.holderPid, lockFile: err.lockFile });
    } else {
      log.error("bunlet could not lock its root directory; exiting", { rootDir: config.rootDir, err });
    }
    return 1;
  }
  void lock.contended.then(() => shutdown.abort(new Error("another bunlet asked for the root directory lock")));
  // Once the root dir is ours, before any server or pod opens a file, as the kubelet's
  // RunKubelet does after its lock file: a bunlet refused the lock says only that.
  setMaxOpenFiles(config.maxOpenFiles, log);

  try {
    const agent = await startAgent(config, { log, signal: shutdown.signal });
    await agent.done;
    return 0;
  } catch (err) {
    if (shutdown.signal.aborted) return 0;
    // Settings that can only be judged whole (eviction thresholds): one line, exit 2, as a bad flag.
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    log.error("bunlet could not start; exiting", { err });
    return 1;
  } finally {
    lock.release();
  }
}

/** `bunlet crictl ...`: the CRI tool beside the agent (src/cli/crictl). */
async function crictl(argv: string[]): Promise<number> {
  const interrupt = new AbortController();
  process.on("SIGINT", () => interrupt.abort(new Error("interrupted")));
  process.on("SIGTERM", () => interrupt.abort(new Error("terminated")));
  const status = await runCrictl(argv, {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    env: process.env,
    now: () => Date.now(),
    signal: interrupt.signal,
  });
  // process.exit below must not cut a piped listing short.
  await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((resolve) => s.write("", () => resolve()))));
  return status;
}

process.exitCode = await main(process.argv.slice(2));
// Open handles (HTTP/2 sessions, sockets) must not keep a stopped agent alive.
process.exit(process.exitCode);
