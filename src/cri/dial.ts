/**
 * Why the runtime's socket cannot be reached, in Go's words (`dial unix /run/containerd/
 * containerd.sock: connect: connection refused`), found by connecting to it once: the transports
 * say it in their own words (grpc-js "No connection established. Last error: … Resolution note:"),
 * and none of them is a contract.
 */
import { connect } from "node:net";
import { goDialError } from "../lib/index.ts";

/** Resolves with the dial error, or undefined when the socket accepts a connection. */
export function diagnoseDial(socketPath: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    socket.once("connect", () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once("error", (err) => {
      socket.destroy();
      resolve(goDialError("unix", socketPath, err));
    });
  });
}
