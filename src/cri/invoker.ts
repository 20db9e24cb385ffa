/**
 * The transport seam of the CRI client: one unary call and one server-streaming call, both taking
 * an AbortSignal and a deadline. Three implementations exist (bunlet's own gRPC on node:http2,
 * connect-es over node:http2, and @grpc/grpc-js); scripts/bench-cri measures them and
 * `defaultTransport` names the fastest.
 */
import type { DescMessage, DescMethodServerStreaming, DescMethodUnary, MessageShape } from "@bufbuild/protobuf";

export interface CallInvoker {
  unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    request: MessageShape<I>,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<MessageShape<O>>;
  serverStream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodServerStreaming<I, O>,
    request: MessageShape<I>,
    signal: AbortSignal | undefined,
  ): AsyncIterable<MessageShape<O>>;
  close(): void;
}

export type TransportKind = "h2" | "connect" | "grpc-js";

/** Full gRPC path of a method, e.g. /runtime.v1.RuntimeService/Version. */
export function grpcPath(method: { parent: { typeName: string }; name: string }): string {
  return `/${method.parent.typeName}/${method.name}`;
}
