export { createCriClient, type CriClient } from "./client.ts";
export type { TransportKind } from "./invoker.ts";
export { CriError, GrpcCode, isCriError, isNotFound, toCriError } from "./errors.ts";
export * as labels from "./labels.ts";
export * from "./gen/runtime/v1/api_pb.ts";
