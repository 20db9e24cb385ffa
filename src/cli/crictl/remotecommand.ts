/**
 * An interactive session on the runtime's streaming server (the URL CRI Exec or Attach returns),
 * spoken over WebSocket with the Kubernetes channel protocol (v5.channel.k8s.io, else
 * v4.channel.k8s.io): every binary message starts with its channel, 0 stdin, 1 stdout, 2 stderr,
 * 3 the error channel (a v1 Status once the process ends: Success, or NonZeroExitCode with the
 * code), 4 terminal resize ({"Width","Height"}), and in v5 255 to close a channel (stdin's EOF).
 * With a TTY the local terminal is put in raw mode for the session and its size follows the
 * window. The exit status is the remote process's.
 */

export interface SessionIO {
  stdin?: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
const CLOSE = 255;

interface Status {
  status?: string;
  message?: string;
  reason?: string;
  details?: { causes?: { reason?: string; message?: string }[] };
}

/** The exit status a v1 Status on the error channel stands for (kubectl's reading of it). */
export function exitCodeOf(status: Status): { code: number; message?: string } {
  if (status.status === "Success") return { code: 0 };
  if (status.reason === "NonZeroExitCode") {
    const cause = status.details?.causes?.find((c) => c.reason === "ExitCode");
    const code = Number(cause?.message);
    if (Number.isInteger(code)) return { code };
  }
  return { code: 1, message: status.message ?? "error executing remote command" };
}

function frame(channel: number, data: Uint8Array | string): Uint8Array {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const out = new Uint8Array(bytes.length + 1);
  out[0] = channel;
  out.set(bytes, 1);
  return out;
}

export function runSession(url: string, opts: { tty: boolean; io: SessionIO; signal: AbortSignal }): Promise<number> {
  const { io, tty } = opts;
  const ws = new WebSocket(url.replace(/^http/, "ws"), ["v5.channel.k8s.io", "v4.channel.k8s.io"]);
  ws.binaryType = "arraybuffer";
  let exit: { code: number; message?: string } = { code: 0 };
  const rawMode = tty && io.stdin?.isTTY === true;
  const restore: (() => void)[] = [];

  return new Promise<number>((resolve, reject) => {
    const finish = () => {
      for (const undo of restore.splice(0)) undo();
      if (exit.message) io.stderr.write(`${exit.message}\n`);
      resolve(exit.code);
    };
    const onAbort = () => ws.close();
    opts.signal.addEventListener("abort", onAbort, { once: true });
    restore.push(() => opts.signal.removeEventListener("abort", onAbort));

    ws.onopen = () => {
      if (tty && io.stdout.isTTY) {
        const resize = () => ws.send(frame(RESIZE, JSON.stringify({ Width: io.stdout.columns, Height: io.stdout.rows })));
        resize();
        io.stdout.on("resize", resize);
        restore.push(() => io.stdout.off("resize", resize));
      }
      const stdin = io.stdin;
      if (!stdin) return;
      if (rawMode) {
        stdin.setRawMode(true);
        restore.push(() => stdin.setRawMode(false));
      }
      const onData = (d: Buffer) => ws.readyState === WebSocket.OPEN && ws.send(frame(STDIN, new Uint8Array(d)));
      // Only v5 can tell the process that its input ended.
      const onEnd = () => ws.readyState === WebSocket.OPEN && ws.protocol === "v5.channel.k8s.io" && ws.send(new Uint8Array([CLOSE, STDIN]));
      stdin.on("data", onData);
      stdin.on("end", onEnd);
      stdin.resume();
      restore.push(() => {
        stdin.off("data", onData);
        stdin.off("end", onEnd);
        stdin.pause();
      });
    };
    ws.onmessage = (ev) => {
      const data = new Uint8Array(ev.data as ArrayBuffer);
      if (data.length < 2) return; // the channel handshake: one byte per channel
      const payload = data.subarray(1);
      if (data[0] === STDOUT) io.stdout.write(payload);
      else if (data[0] === STDERR) io.stderr.write(payload);
      else if (data[0] === ERROR) {
        try {
          exit = exitCodeOf(JSON.parse(new TextDecoder().decode(payload)) as Status);
        } catch {
          exit = { code: 1, message: new TextDecoder().decode(payload) };
        }
      }
    };
    ws.onerror = () => {
      for (const undo of restore.splice(0)) undo();
      reject(new Error(`cannot open a streaming session at ${url.replace(/\/[^/]*$/, "/…")}`));
    };
    ws.onclose = () => finish();
  });
}
