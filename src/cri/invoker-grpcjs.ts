import * as grpc from "@grpc/grpc-js";
import type { CallInvoker } from "./invoker.ts";

/** @grpc/grpc-js channel to unix://path; grpc-js reconnects with its own backoff. */
export function createGrpcJsInvoker(socketPath: string): CallInvoker {
  const client = new grpc.Client(`unix://${socketPath}`, grpc.credentials.createInsecure(), {
    "grpc.max_receive_message_length": 16 * 1024 * 1024,
    "grpc.initial_reconnect_backoff_ms": 100,
    "grpc.max_reconnect_backoff_ms": 1000,
  });
  return {
    unary(method, request, signal, timeoutMs) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const call = client.makeUnaryRequest(
          method.path,
          (m: typeof request) => Buffer.from(method.encode(m)),
          (b: Buffer) => method.decode(b),
          request,
          new grpc.Metadata(),
          { deadline: Date.now() + timeoutMs },
          (err, value) => {
            signal?.removeEventListener("abort", onAbort);
            if (err) reject(err);
            else resolve(value!);
          },
        );
        const onAbort = () => call.cancel();
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
    async *serverStream(method, request, signal) {
      const call = client.makeServerStreamRequest(
        method.path,
        (m: typeof request) => Buffer.from(method.encode(m)),
        (b: Buffer) => method.decode(b),
        request,
        new grpc.Metadata(),
        {},
      );
      const onAbort = () => call.cancel();
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        for await (const msg of call) yield msg;
      } finally {
        signal?.removeEventListener("abort", onAbort);
        call.cancel();
      }
    },
    close() {
      client.close();
    },
  };
}
