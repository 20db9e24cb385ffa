// The tests' door to the CRI messages' descriptors (Schemas for @bufbuild/protobuf's create, the
// services for the fake runtime), which the agent itself never loads.
export * from "./gen/runtime/v1/api_pb.ts";
