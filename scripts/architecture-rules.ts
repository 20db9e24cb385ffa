/**
 * Rules of the architecture check (scripts/check-architecture.ts) besides the folder direction
 * (its `allowed` table): which npm packages each src/ folder may import, and the index.ts values
 * that only tests use on purpose. Change a rule here, with a comment saying why.
 */

/**
 * The npm packages each src/ folder may import (node: and bun: built-ins are free). The v1 model
 * comes from kubernetes-types through api, which re-exports what other folders match a pod
 * against; a folder that speaks an API object api does not model (Node, Lease, Event,
 * RuntimeClass) may read that object's type from kubernetes-types itself rather than api
 * growing a copy of every kind. A folder not listed may import no package.
 */
export const packages: Record<string, readonly string[]> = {
  api: ["kubernetes-types"],
  // The API envelope (Status, ListMeta) and kubeconfig files (YAML).
  apiclient: ["kubernetes-types", "yaml"],
  // The YAML reader (YAML 1.1 scalars, as the kubelet's sigs.k8s.io/yaml).
  lib: ["yaml"],
  // The CRI client: generated messages and the two gRPC transports.
  cri: ["@bufbuild/protobuf", "@connectrpc/connect-node", "@grpc/grpc-js"],
  // CRI messages are made with @bufbuild/protobuf's create() where they are used.
  runtime: ["@bufbuild/protobuf"],
  // gRPC probes call grpc.health.v1 with the CRI client's gRPC stack.
  prober: ["@bufbuild/protobuf", "@grpc/grpc-js"],
  // crictl's JSON and YAML output of CRI messages.
  cli: ["@bufbuild/protobuf", "yaml"],
  // One prom-client registry: made in metrics, served by server, wired by kubelet.
  metrics: ["prom-client"],
  server: ["prom-client"],
  kubelet: ["prom-client"],
  // Objects api does not model: Node and Lease (node), Event (events), RuntimeClass, the Node a mirror pod is owned by.
  node: ["kubernetes-types"],
  events: ["kubernetes-types"],
  runtimeclass: ["kubernetes-types"],
  mirrorpods: ["kubernetes-types"],
};

/**
 * Values an index.ts exports that only tests outside the folder use, and that are the folder's
 * real API rather than test helpers (test helpers go through the folder's testing.ts door).
 */
export const testedThroughIndex: Record<string, readonly string[]> = {
  // The error types tests of other layers construct or match: the fake CRI answers with CriErrors.
  "src/cri/index.ts": ["CriError", "toCriError"],
  "src/podconfig/index.ts": ["ManifestError"],
  // The e2e test of the embedded containerd's image preload, with the image it must find.
  "src/containerd/index.ts": ["PAUSE_IMAGE", "preloadImages"],
  // The root-dir lock's files, which the lock's integration test holds from a second process.
  "src/kubelet/index.ts": ["rootLockFiles"],
};
