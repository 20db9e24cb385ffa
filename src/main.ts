/**
 * bunlet's entry point: flags and config file → startAgent → run until SIGTERM/SIGINT. Nothing
 * else lives here. Bad input exits 2 with one line; a failed start exits 1 with the reason.
 */
import { ConfigError, logConfigNotices, parseArgs } from "./config/index.ts";
import { startAgent } from "./kubelet/index.ts";
import { createLogger } from "./lib/index.ts";

async function main(argv: string[]): Promise<number> {
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
  const { config } = parsed;
  const log = createLogger({ format: config.loggingFormat, verbosity: config.verbosity });
  logConfigNotices(log, parsed.notices);

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

  try {
    const agent = await startAgent(config, { log, signal: shutdown.signal });
    await agent.done;
    return 0;
  } catch (err) {
    if (shutdown.signal.aborted) return 0;
    log.error("bunlet could not start; exiting", { err });
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
// Open handles (HTTP/2 sessions, sockets) must not keep a stopped agent alive.
process.exit(process.exitCode);
