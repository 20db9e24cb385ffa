import * as net from "node:net";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { DescMethod, DescMethodServerStreaming, DescMethodUnary } from "@bufbuild/protobuf";
import { ImageService, RuntimeService } from "./gen/runtime/v1/api_pb.ts";
import type { CallInvoker } from "./invoker.ts";

/** connect-es works from the services' descriptors, which only this transport loads: each method by its gRPC path. */
const byPath = new Map<string, DescMethod>([...RuntimeService.methods, ...ImageService.methods].map((m) => [`/${m.parent.typeName}/${m.name}`, m]));

function descriptorOf(path: string): DescMethod {
  const method = byPath.get(path);
  if (!method) throw new Error(`no CRI method ${path}`);
  return method;
}

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
    // As the h2 transport's codec: fields bunlet's CRI proto leaves out are skipped.
    binaryOptions: { readUnknownFields: false },
  });
  return {
    async unary(method, request, signal, timeoutMs) {
      const res = await transport.unary(descriptorOf(method.path) as DescMethodUnary, signal, timeoutMs, undefined, request as never);
      return res.message as Awaited<ReturnType<typeof method.decode>>;
    },
    async *serverStream(method, request, signal) {
      async function* input() {
        yield request;
      }
      const res = await transport.stream(descriptorOf(method.path) as DescMethodServerStreaming, signal, undefined, undefined, input() as never);
      for await (const message of res.message) yield message as ReturnType<typeof method.decode>;
    },
    close() {
      // Sessions close themselves when idle; nothing holds the process open.
    },
  };
}
