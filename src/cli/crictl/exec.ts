/**
 * `crictl exec`: runs a command in a container through CRI ExecSync and exits with its status,
 * its output on stdout and stderr. An interactive session (-i, -t) needs the runtime's streaming
 * endpoint, which bunlet does not speak yet; the error names the `ctr` command that does it.
 */
import { UsageError } from "./args.ts";
import type { Command } from "./command.ts";

export const execCommand: Command = {
  name: "exec",
  usage: "Run a command in a running container",
  argsUsage: "CONTAINER-ID COMMAND [ARG...]",
  flags: [
    { name: "sync", alias: "s", kind: "bool", usage: "Run the command synchronously" },
    { name: "timeout", kind: "int", usage: "Timeout in seconds (default: 0)" },
    { name: "interactive", alias: "i", kind: "bool", usage: "Keep STDIN open" },
    { name: "tty", alias: "t", kind: "bool", usage: "Allocate a pseudo-TTY" },
  ],
  async run(ctx, parsed) {
    const [id, ...cmd] = parsed.args;
    if (id === undefined || cmd.length === 0) throw new UsageError("exec needs a CONTAINER-ID and a COMMAND");
    if (parsed.bools.has("interactive") || parsed.bools.has("tty")) {
      throw new UsageError(
        `interactive exec (-i, -t) is not supported by bunlet crictl; use: ctr --address ${ctx.cri.socketPath} -n k8s.io task exec -t --exec-id debug ${id} ${cmd.join(" ")}`,
      );
    }
    const timeout = parsed.ints.get("timeout") ?? 0;
    const res = await ctx.cri.runtime.execSync({ containerId: id, cmd, timeout: BigInt(timeout) }, { signal: ctx.signal });
    const decoder = new TextDecoder();
    if (res.stdout.length > 0) ctx.out(decoder.decode(res.stdout));
    if (res.stderr.length > 0) ctx.err(decoder.decode(res.stderr));
    return res.exitCode;
  },
};
