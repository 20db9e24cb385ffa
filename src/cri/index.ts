export {
  createCriClient,
  operationType,
  defaultTransport,
  RUNTIME_REQUEST_TIMEOUT_MS,
  SHORT_REQUEST_TIMEOUT_MS,
  type CriClient,
  type CriClientOptions,
  type CallOptions,
  type OperationObserver,
  type RuntimeServiceClient,
  type ImageServiceClient,
} from "./client.ts";
export type { TransportKind } from "./invoker.ts";
export { CriError, GrpcCode, isCriError, isNotFound, isUnimplemented, toCriError } from "./errors.ts";
export { parseEndpoint } from "./endpoint.ts";
export * as labels from "./labels.ts";
export * from "./gen/runtime/v1/api_pb.ts";
