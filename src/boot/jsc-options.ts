/**
 * JavaScriptCore's options for the agent. JavaScriptCore reads them from the environment
 * (`BUN_JSC_<option>`) once, when the process starts, and Bun has no other way in, so the built
 * binary sets the ones it wants and re-executes itself before it does anything else: the same
 * executable, arguments, pid and environment, plus these variables. A variable already set (by the
 * user, or by the first run) is left as it is, and when every one is set nothing is re-executed,
 * so `BUN_JSC_useDFGJIT=1 BUN_JSC_useFTLJIT=1` in bunlet's environment keeps JavaScriptCore's
 * defaults. Run from source (`bun src/main.ts`, the tests) bunlet does not re-execute itself.
 *
 * The options: JavaScriptCore's optimising tiers off, DFG and FTL (FTL builds on DFG's graph, so
 * DFG off takes both; FTL is named too so a user's `BUN_JSC_useDFGJIT=1` alone gets the state
 * measured before). bunlet's code is orchestration, not tight loops: the interpreter and the
 * baseline JIT run it, and the optimising compilers' memory, their code and the pages of the
 * executable they live in are never touched. On 100 static pods on containerd the agent ends a
 * burst 7-13 MiB lower and rests 6.5 MiB lower (4 of them anonymous), for about 0.013 cores more
 * at rest (docs/lean.md, "JavaScriptCore without its optimising tiers").
 */

export const JSC_OPTIONS: Readonly<Record<string, string>> = { BUN_JSC_useDFGJIT: "0", BUN_JSC_useFTLJIT: "0" };

export interface JscRestartDeps {
  env: Record<string, string | undefined>;
  /** process.argv: [runtime, entry, ...arguments]. */
  argv: readonly string[];
  /** process.argv0: the name the process was started by (what ps and systemd show). */
  argv0: string;
  execPath: string;
  /** process.execve: replaces the process; returns only by throwing. */
  execve: (file: string, args: string[], env: Record<string, string>) => void;
  /** One line on stderr (no logger exists yet). */
  warn: (line: string) => void;
}

/** The entry of a `bun build --compile` executable lives in Bun's embedded file system. */
const COMPILED_ENTRY = "/$bunfs/";

/**
 * The variables the process still needs (none when run from source or when all are set), then the
 * re-exec with them. Returns only when nothing was re-executed: none was needed, or execve failed
 * (logged; bunlet goes on with JavaScriptCore's defaults).
 */
export function restartWithJscOptions(deps: JscRestartDeps): void {
  const missing = Object.entries(JSC_OPTIONS).filter(([name]) => deps.env[name] === undefined);
  if (missing.length === 0 || !deps.argv[1]?.startsWith(COMPILED_ENTRY)) return;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(deps.env)) if (value !== undefined) env[name] = value;
  for (const [name, value] of missing) env[name] = value;
  // A compiled executable's argv[1] is its embedded entry, not an argument (and its argv[0] is
  // "bun"): the new image gets the name it was started by and the user's arguments, as the first.
  try {
    deps.execve(deps.execPath, [deps.argv0, ...deps.argv.slice(2)], env);
  } catch (err) {
    const settings = missing.map(([name, value]) => `${name}=${value}`).join(" ");
    deps.warn(`bunlet: could not re-execute ${deps.execPath} with ${settings} (${(err as Error).message}); running with JavaScriptCore's defaults`);
  }
}
