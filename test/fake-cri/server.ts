/**
 * gRPC wiring: a @grpc/grpc-js Server (it runs under Bun) serving the CRI services from the
 * protobuf-es descriptors on a unix socket. One GrpcListener owns one socket path; `close()`
 * drops every connection and stream at once (what a client sees when containerd dies) and
 * removes the socket file, `listen()` binds a fresh server on the same path.
 */
import * as grpc from "@grpc/grpc-js";
import { fromBinary, toBinary, type DescMessage, type DescMethod, type DescService, type Message } from "@bufbuild/protobuf";
import { rmSync } from "node:fs";
import { GrpcCode } from "../../src/cri/index.ts";
import { FakeCriError } from "./errors.ts";

export interface StreamSink {
  write(message: Message): void;
  /** Ends the stream with a gRPC error status. */
  fail(code: GrpcCode, message: string): void;
  /** Aborts when the client goes away or the listener closes. */
  readonly signal: AbortSignal;
}

export interface CallHandler {
  unary(method: DescMethod, request: Message, signal: AbortSignal): Promise<Message>;
  stream(method: DescMethod, request: Message, sink: StreamSink): void;
}

function toStatus(err: unknown): Partial<grpc.StatusObject> {
  if (err instanceof FakeCriError) return { code: err.code as number, details: err.message };
  return { code: grpc.status.UNKNOWN, details: err instanceof Error ? err.message : String(err) };
}

function definition(service: DescService): grpc.ServiceDefinition {
  const def: Record<string, grpc.MethodDefinition<Message, Message>> = {};
  for (const method of service.methods) {
    const input = method.input as DescMessage;
    const output = method.output as DescMessage;
    def[method.name] = {
      path: `/${service.typeName}/${method.name}`,
      requestStream: false,
      responseStream: method.methodKind === "server_streaming",
      requestSerialize: (m: Message) => Buffer.from(toBinary(input, m)),
      requestDeserialize: (b: Buffer) => fromBinary(input, b),
      responseSerialize: (m: Message) => Buffer.from(toBinary(output, m)),
      responseDeserialize: (b: Buffer) => fromBinary(output, b),
      originalName: method.localName,
    };
  }
  return def;
}

export class GrpcListener {
  #server: grpc.Server | undefined;
  /** Aborted when this server instance closes: ends its in-flight calls and streams. */
  #closing = new AbortController();

  constructor(
    readonly socketPath: string,
    private readonly services: DescService[],
    private readonly handler: CallHandler,
  ) {}

  get listening(): boolean {
    return this.#server !== undefined;
  }

  async listen(): Promise<void> {
    if (this.#server) return;
    rmSync(this.socketPath, { force: true });
    const server = new grpc.Server();
    const closing = new AbortController();
    for (const service of this.services) server.addService(definition(service), this.#implementation(service, closing.signal));
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(`unix://${this.socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
    );
    this.#server = server;
    this.#closing = closing;
  }

  /** Drops every connection and open stream and removes the socket; clients see UNAVAILABLE. */
  close(): void {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    this.#closing.abort(new FakeCriError(GrpcCode.UNAVAILABLE, "fake CRI: runtime went away"));
    server.forceShutdown();
    rmSync(this.socketPath, { force: true });
  }

  #implementation(service: DescService, closing: AbortSignal): grpc.UntypedServiceImplementation {
    const impl: grpc.UntypedServiceImplementation = {};
    for (const method of service.methods) {
      if (method.methodKind === "server_streaming") {
        impl[method.name] = (call: grpc.ServerWritableStream<Message, Message>) => this.#serveStream(method, call, closing);
      } else {
        impl[method.name] = (call: grpc.ServerUnaryCall<Message, Message>, callback: grpc.sendUnaryData<Message>) =>
          this.#serveUnary(method, call, callback, closing);
      }
    }
    return impl;
  }

  #serveUnary(method: DescMethod, call: grpc.ServerUnaryCall<Message, Message>, callback: grpc.sendUnaryData<Message>, closing: AbortSignal): void {
    const cancelled = new AbortController();
    call.on("cancelled", () => cancelled.abort(new FakeCriError(GrpcCode.CANCELLED, "client cancelled")));
    const signal = AbortSignal.any([cancelled.signal, closing]);
    this.handler.unary(method, call.request, signal).then(
      (response) => {
        if (!signal.aborted) callback(null, response);
      },
      (err) => {
        if (!signal.aborted) callback(toStatus(err));
      },
    );
  }

  #serveStream(method: DescMethod, call: grpc.ServerWritableStream<Message, Message>, closing: AbortSignal): void {
    const ended = new AbortController();
    const signal = AbortSignal.any([ended.signal, closing]);
    call.on("cancelled", () => ended.abort());
    call.on("error", () => ended.abort());
    // A closing listener destroys the connection; make sure the call is gone with it.
    const onClosing = () => call.destroy();
    closing.addEventListener("abort", onClosing, { once: true });
    ended.signal.addEventListener("abort", () => closing.removeEventListener("abort", onClosing), { once: true });
    this.handler.stream(method, call.request, {
      signal,
      write: (message) => {
        if (!signal.aborted) call.write(message);
      },
      fail: (code, details) => {
        if (signal.aborted) return;
        call.emit("error", { code: code as number, details });
        ended.abort();
      },
    });
  }
}
