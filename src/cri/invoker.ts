/**
 * The transport seam of the CRI client: one unary call and one server-streaming call, both taking
 * an AbortSignal and a deadline. Three implementations exist (bunlet's own gRPC on node:http2,
 * connect-es over node:http2, and @grpc/grpc-js); scripts/bench-cri measures them and
 * `defaultTransport` names the fastest.
 */
import type { CodecMethod } from "./gen/runtime/v1/api_codec.ts";

/** A method as the transports see it: its gRPC path and its messages' codec (api_codec.ts). */
export type WireMethod<I, O, K extends "unary" | "server_streaming"> = CodecMethod<I, O, never, K>;

export interface CallInvoker {
  unary<I, O>(method: WireMethod<I, O, "unary">, request: I, signal: AbortSignal | undefined, timeoutMs: number): Promise<O>;
  serverStream<I, O>(method: WireMethod<I, O, "server_streaming">, request: I, signal: AbortSignal | undefined): AsyncIterable<O>;
  close(): void;
}

export type TransportKind = "h2" | "connect" | "grpc-js";

