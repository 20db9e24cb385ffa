/**
 * A typed client for the CRI RuntimeService and ImageService. Every call carries a deadline (the
 * kubelet's runtime request timeout, 2 min, or a short one for status and list calls) and an
 * optional AbortSignal; every failure is a CriError; every call is counted in the kubelet's
 * runtime operation metrics.
 */
import type { DescMessage, DescService, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { ImageServiceCodec, RuntimeServiceCodec, type CodecMethod } from "./gen/runtime/v1/api_codec.ts";
import type { ImageService, RuntimeService } from "./gen/runtime/v1/api_pb.ts";
import { parseEndpoint } from "./endpoint.ts";
import { diagnoseDial } from "./dial.ts";
import { CriError, GrpcCode, toCriError } from "./errors.ts";
import type { CallInvoker, TransportKind } from "./invoker.ts";
import { createH2Invoker } from "./invoker-h2.ts";

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the method's default deadline. */
  timeoutMs?: number;
}

type MethodFn<M> = M extends { methodKind: "unary"; input: infer I extends DescMessage; output: infer O extends DescMessage }
  ? (request?: MessageInitShape<I>, options?: CallOptions) => Promise<MessageShape<O>>
  : M extends { methodKind: "server_streaming"; input: infer I extends DescMessage; output: infer O extends DescMessage }
    ? (request?: MessageInitShape<I>, options?: CallOptions) => AsyncIterable<MessageShape<O>>
    : never;

export type ServiceClient<S extends DescService> = { [K in keyof S["method"]]: MethodFn<S["method"][K]> };
export type RuntimeServiceClient = ServiceClient<typeof RuntimeService>;
export type ImageServiceClient = ServiceClient<typeof ImageService>;

/** The kubelet's runtimeRequestTimeout. */
const RUNTIME_REQUEST_TIMEOUT_MS = 2 * 60_000;
/** Status, version and list calls should answer fast; a hung runtime must not stall a relist. */
const SHORT_REQUEST_TIMEOUT_MS = 10_000;

const shortMethods = new Set([
  "Version",
  "Status",
  "ListPodSandbox",
  "PodSandboxStatus",
  "ListContainers",
  "ContainerStatus",
  "ListImages",
  "ImageStatus",
  "ImageFsInfo",
]);

/** CRI method → the kubelet's operation_type label (instrumented_services.go). */
export function operationType(methodName: string): string {
  return methodName
    .replace(/PodSandbox/g, "Podsandbox")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase();
}

export interface OperationObserver {
  observe(operation: string, seconds: number, failed: boolean): void;
}

export interface CriClientOptions {
  endpoint: string;
  transport?: TransportKind;
  observer?: OperationObserver;
  /** Extra time added to StopContainer/ExecSync deadlines on top of their own timeout. */
  requestTimeoutMs?: number;
}

export interface CriClient {
  readonly endpoint: string;
  readonly socketPath: string;
  readonly runtime: RuntimeServiceClient;
  readonly image: ImageServiceClient;
  close(): void;
}

/** The transport bunlet uses unless told otherwise; chosen by scripts/bench-cri (see docs/performance.md). */
const defaultTransport: TransportKind = "h2";

function defaultTimeout(name: string, request: Record<string, unknown>, base: number): number {
  if (shortMethods.has(name)) return SHORT_REQUEST_TIMEOUT_MS;
  // StopContainer and ExecSync carry their own timeout in seconds; the call may last that long.
  const own = Number(request.timeout ?? 0n);
  if ((name === "StopContainer" || name === "ExecSync") && own > 0) return base + own * 1000;
  return base;
}

/** A service's methods as the generated codec lists them (api_codec.ts), by local name. */
type CodecTable = Record<string, CodecMethod<unknown, unknown, unknown>>;

function bindService<S extends DescService>(
  methods: CodecTable,
  invoker: CallInvoker,
  observer: OperationObserver | undefined,
  base: number,
  socketPath: string,
): ServiceClient<S> {
  // An unreachable runtime is reported as Go reports a failed dial, like the kubelet's errors.
  const explain = async (e: CriError): Promise<CriError> => {
    if (e.code !== GrpcCode.UNAVAILABLE) return e;
    const dial = await diagnoseDial(socketPath);
    return dial ? new CriError(e.method, e.code, dial, { cause: e.cause }) : e;
  };
  const client: Record<string, unknown> = {};
  for (const [localName, method] of Object.entries(methods)) {
    const op = operationType(method.name);
    if (method.kind === "unary") {
      const unary = method as CodecMethod<unknown, unknown, unknown, "unary">;
      client[localName] = async (init: unknown = {}, options: CallOptions = {}) => {
        const request = method.create(init);
        const timeoutMs = options.timeoutMs ?? defaultTimeout(method.name, request as Record<string, unknown>, base);
        const started = performance.now();
        try {
          const res = await invoker.unary(unary, request, options.signal, timeoutMs);
          observer?.observe(op, (performance.now() - started) / 1000, false);
          return res;
        } catch (err) {
          observer?.observe(op, (performance.now() - started) / 1000, true);
          const elapsed = performance.now() - started;
          // Cut short by the caller: said as Go's gRPC says a cancelled context, whatever the
          // transport's own wording ("Cancelled on client", "This operation was aborted").
          if (options.signal?.aborted) throw new CriError(method.name, GrpcCode.CANCELLED, "context canceled", { cause: err });
          throw await explain(toCriError(method.name, err, elapsed >= timeoutMs - 5 && isTimeoutLike(err)));
        }
      };
    } else {
      const stream = method as CodecMethod<unknown, unknown, unknown, "server_streaming">;
      client[localName] = (init: unknown = {}, options: CallOptions = {}) => {
        const request = method.create(init);
        return (async function* () {
          try {
            yield* invoker.serverStream(stream, request, options.signal);
          } catch (err) {
            observer?.observe(op, 0, true);
            throw await explain(toCriError(method.name, err));
          }
        })();
      };
    }
  }
  return client as ServiceClient<S>;
}

/** Both transports report a call cut short with the gRPC numbers (connect's Code uses them too). */
function isTimeoutLike(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === GrpcCode.DEADLINE_EXCEEDED || code === GrpcCode.CANCELLED || (err as { name?: string })?.name === "TimeoutError";
}

/**
 * The two library transports are loaded on their first call, not at start: evaluating
 * @grpc/grpc-js and connect-es costs the agent heap it never uses with the default transport
 * (docs/lean.md, "Where the megabytes are").
 */
function lazyInvoker(load: () => Promise<CallInvoker>): CallInvoker {
  let loaded: Promise<CallInvoker> | undefined;
  const invoker = () => (loaded ??= load());
  return {
    async unary(method, request, signal, timeoutMs) {
      return (await invoker()).unary(method, request, signal, timeoutMs);
    },
    async *serverStream(method, request, signal) {
      yield* (await invoker()).serverStream(method, request, signal);
    },
    close() {
      void loaded?.then((i) => i.close());
    },
  };
}

export function createCriClient(options: CriClientOptions): CriClient {
  const socketPath = parseEndpoint(options.endpoint);
  const kind = options.transport ?? defaultTransport;
  const invoker =
    kind === "h2"
      ? createH2Invoker(socketPath)
      : kind === "grpc-js"
        ? lazyInvoker(async () => (await import("./invoker-grpcjs.ts")).createGrpcJsInvoker(socketPath))
        : lazyInvoker(async () => (await import("./invoker-connect.ts")).createConnectInvoker(socketPath));
  const base = options.requestTimeoutMs ?? RUNTIME_REQUEST_TIMEOUT_MS;
  return {
    endpoint: `unix://${socketPath}`,
    socketPath,
    runtime: bindService<typeof RuntimeService>(RuntimeServiceCodec as unknown as CodecTable, invoker, options.observer, base, socketPath),
    image: bindService<typeof ImageService>(ImageServiceCodec as unknown as CodecTable, invoker, options.observer, base, socketPath),
    close: () => invoker.close(),
  };
}
