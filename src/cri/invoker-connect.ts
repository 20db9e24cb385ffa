import * as net from "node:net";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { CallInvoker } from "./invoker.ts";

/**
 * connect-es gRPC transport over HTTP/2 on a unix socket. Its session manager re-dials on the next
 * call after the socket dies, which is how the client recovers when containerd restarts.
 */
export function createConnectInvoker(socketPath: string): CallInvoker {
  const transport = createGrpcTransport({
    baseUrl: "http://localhost",
    nodeOptions: { createConnection: () => net.connect(socketPath) },
    // Keep the HTTP/2 session alive between calls, but notice a dead runtime quickly.
    pingIntervalMs: 10_000,
    pingTimeoutMs: 5_000,
    idleConnectionTimeoutMs: 60_000,
  });
  return {
    async unary(method, request, signal, timeoutMs) {
      const res = await transport.unary(method, signal, timeoutMs, undefined, request);
      return res.message;
    },
    async *serverStream(method, request, signal) {
      async function* input() {
        yield request;
      }
      const res = await transport.stream(method, signal, undefined, undefined, input());
      yield* res.message;
    },
    close() {
      // Sessions close themselves when idle; nothing holds the process open.
    },
  };
}
