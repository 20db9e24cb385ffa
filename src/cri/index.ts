export { createCriClient, type CriClient } from "./client.ts";
export type { TransportKind } from "./invoker.ts";
export { CriError, GrpcCode, isCriError, isNotFound, toCriError } from "./errors.ts";
export * as labels from "./labels.ts";
// The CRI messages' types, and their enums and constructors from the generated codec: the agent
// never loads the descriptors of api_pb.ts (docs/lean.md, "What loading a module costs").
export type * from "./gen/runtime/v1/api_pb.ts";
export {
  ContainerEventType,
  ContainerState,
  makeContainerConfig,
  makeLinuxContainerResources,
  makePodSandboxConfig,
  MountPropagation,
  NamespaceMode,
  PodSandboxState,
  Protocol,
  SecurityProfile_ProfileType,
} from "./gen/runtime/v1/api_codec.ts";

/** The messages' descriptors, for crictl's JSON output: loaded on first use, never by the agent. */
export function loadCriDescriptors(): Promise<typeof import("./gen/runtime/v1/api_pb.ts")> {
  return import("./gen/runtime/v1/api_pb.ts");
}
