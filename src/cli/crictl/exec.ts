/**
 * `crictl exec`: runs a command in a container and exits with its status, its output on stdout
 * and stderr. Without -i/-t (or with -s) through CRI ExecSync; with -i (keep stdin open) or -t
 * (a TTY) through CRI Exec and a session on the runtime's streaming server, as crictl does.
 */
import { UsageError } from "./args.ts";
import type { Command } from "./command.ts";
import { runSession } from "./remotecommand.ts";

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
    const interactive = parsed.bools.has("interactive");
    const tty = parsed.bools.has("tty");
    if ((interactive || tty) && !parsed.bools.has("sync")) {
      const res = await ctx.cri.runtime.exec({ containerId: id, cmd, stdin: interactive, stdout: true, stderr: !tty, tty }, { signal: ctx.signal });
      return runSession(res.url, { tty, io: { stdin: interactive ? process.stdin : undefined, stdout: process.stdout, stderr: process.stderr }, signal: ctx.signal });
    }
    const timeout = parsed.ints.get("timeout") ?? 0;
    const res = await ctx.cri.runtime.execSync({ containerId: id, cmd, timeout: BigInt(timeout) }, { signal: ctx.signal });
    const decoder = new TextDecoder();
    if (res.stdout.length > 0) ctx.out(decoder.decode(res.stdout));
    if (res.stderr.length > 0) ctx.err(decoder.decode(res.stderr));
    return res.exitCode;
  },
};
