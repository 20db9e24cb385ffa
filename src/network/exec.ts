/** Runs a host networking tool (ip, iptables-restore) and says what failed in one error. */

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** argv and an optional stdin; resolves with the exit code, never rejects for a non-zero one. */
export type CommandRunner = (argv: readonly string[], stdin?: string) => Promise<CommandResult>;

export const runCommand: CommandRunner = async (argv, stdin) => {
  const child = Bun.spawn([...argv], { stdin: stdin === undefined ? "ignore" : new Blob([stdin]), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
};

/** A tool that exited non-zero: the command line and its own words. */
class HostNetworkError extends Error {
  readonly argv: readonly string[];
  constructor(argv: readonly string[], result: CommandResult) {
    super(`${argv.join(" ")} exited with code ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
    this.name = "HostNetworkError";
    this.argv = argv;
  }
}

/** Runs the command; HostNetworkError unless it exits 0. */
export async function mustRun(run: CommandRunner, argv: readonly string[], stdin?: string): Promise<string> {
  let result: CommandResult;
  try {
    result = await run(argv, stdin);
  } catch (err) {
    // spawn itself failed: the tool is missing
    throw new HostNetworkError(argv, { code: -1, stdout: "", stderr: err instanceof Error ? err.message : String(err) });
  }
  if (result.code !== 0) throw new HostNetworkError(argv, result);
  return result.stdout;
}
