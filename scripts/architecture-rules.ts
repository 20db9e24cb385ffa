/**
 * The rules the architecture check (scripts/check-architecture.ts) holds src/ to: which folders
 * each folder may import, which npm packages each may import, and the names an index.ts keeps
 * whoever uses them. Change a rule here, with a comment saying why.
 */

/** Which folders each src/ folder may import (through their index.ts). */
const subsystem = ["api", "container", "cri", "lib", "metrics"];
export const allowed: Record<string, readonly string[]> = {
  lib: [],
  api: [],
  // kubernetes_build_info carries bunlet's version, which config reads from package.json.
  metrics: ["config"],
  // Byte sizes (containerLogMaxSize, ...) are resource quantities, read with api's Quantity.
  config: ["api", "lib"],
  cri: ["lib"],
  containerd: ["lib"],
  apiclient: ["lib"],
  container: ["api", "cri", "lib"],
  hooks: ["api", "container", "cri", "lib"],
  runtime: ["api", "container", "cri", "events", "hooks", "lib", "metrics", "subpath"],
  // subPath safety (the kubelet's pkg/volume/util/subpath): safe open, safe mkdir, bind mounts
  // under the pod directory and their cleanup; used by makeMounts (runtime) and the volume teardown.
  subpath: ["lib"],
  // The kubelet's event recorder and its apiserver sink.
  events: ["api", "apiclient", "lib"],
  // The kubelet's pod admission predicates: pure, over the v1 Pod.
  admission: ["api"],
  // The allocation manager (in-place resize): what the node allocated to each pod, admission against it, the resize decision.
  allocation: ["admission", "api", "lib"],
  // RuntimeClass names to CRI runtime handlers, from the apiserver's RuntimeClasses.
  runtimeclass: ["apiclient", "lib"],
  // The API objects pods read (ConfigMaps, Secrets, Services, tokens), through the checkpoint;
  // handed to runtime (env) and volumes (the token manager is volumes') by the wiring.
  apiobjects: ["api", "apiclient", "checkpoint", "lib", "runtime", "volumes"],
  // Pod certificates (KEP-4317) and ClusterTrustBundles: their watches and requests through the
  // API client; the projected volume plugin reads them through its own interfaces, by the wiring.
  podcerts: ["api", "apiclient", "lib"],
  // The node's record of its desired state (issue 27): files over the v1 model, nothing else.
  checkpoint: ["api", "lib"],
  // Mirror pods: the apiserver's copies of static pods, kept by the wiring's pod syncer and housekeeping.
  mirrorpods: ["api", "apiclient", "lib"],
  // The subsystems below use the container view and may use each other's index.ts.
  // The apiserver source lists and watches this node's pods through the API client.
  podconfig: [...subsystem, "apiclient"],
  pleg: [...subsystem],
  // The status sync patches pod statuses (and deletes finished pods) through the API client.
  status: [...subsystem, "apiclient"],
  prober: [...subsystem, "events"],
  // The kubelet API reads container log files (containerlogs); webhook reviews go through a narrow client interface.
  server: [...subsystem, "containerlogs"],
  // Container log files in the CRI format: files and bytes only.
  containerlogs: ["lib"],
  volumes: [...subsystem, "subpath"],
  node: [...subsystem, "apiclient"],
  podworkers: [...subsystem, "runtime"],
  // The Summary API from CRI stats and the host; the servers get it through the wiring.
  stats: ["container", "cri", "lib"],
  // Container log rotation over the CRI (ReopenContainerLog) and the pod logs directory.
  logrotation: ["cri", "lib"],
  // Image GC (the kubelet's image manager) over the CRI image and runtime services.
  imagegc: ["cri", "lib"],
  // The eviction manager: thresholds (api's Quantity), ranking over v1 pods; stats and kills come through the wiring.
  eviction: ["api", "lib"],
  // The container manager (issue 25): kubepods / QoS / pod cgroups, node allocatable; pure over the v1 Pod and cgroupfs.
  cm: ["api", "lib"],
  // User namespaces (issue 45): pod ID ranges from the node's subordinate IDs, kept in pod
  // directories; pure over the v1 Pod. The runtime reads a pod's mappings through its own
  // interface, and the wiring feeds the runtime's handlers in.
  userns: ["api", "lib"],
  // The embedded runtime's pod network in a cluster (issue 28): Nodes through the API client, host tools.
  network: ["apiclient", "lib"],
  // Graceful node shutdown on systemd-logind (busctl, gdbus, systemd-inhibit); pods are stopped through the wiring.
  shutdown: ["api", "lib"],
  // Pod sync (kubelet.go's SyncHandler and podSyncer, HandlePodCleanups): the sync loop, its handlers,
  // the pod syncer the workers run, housekeeping and the policy around them. It drives the
  // subsystems through their doors and is built only by the composition root (kubelet/).
  podsync: ["admission", "allocation", "api", "checkpoint", "cm", "config", "container", "events", "lib", "metrics", "mirrorpods", "node", "pleg", "podconfig", "podworkers", "prober", "runtime", "server", "status"],
  // The start-up steps with their own policy (issue 29): the root-dir lock, the open files limit
  // and the settings judged whole (eviction thresholds, the cgroup driver), which main.ts takes
  // before the agent, and the runtime connection (the embedded containerd or the endpoint, the
  // first 30 s wait), which the wiring takes. Only kubelet/ lists it, so nothing but the
  // composition root and main.ts may import boot.
  boot: ["cm", "config", "containerd", "cri", "eviction", "lib", "metrics"],
  kubelet: ["admission", "allocation", "api", "apiclient", "apiobjects", "boot", "checkpoint", "cm", "config", "container", "containerd", "cri", "events", "eviction", "imagegc", "lib", "logrotation", "metrics", "mirrorpods", "network", "node", "pleg", "podcerts", "podconfig", "podsync", "podworkers", "prober", "runtime", "runtimeclass", "server", "shutdown", "stats", "status", "userns", "volumes"],
  // Subcommands beside the agent (`bunlet crictl`): the CRI client and the embedded containerd's paths.
  cli: ["containerd", "cri", "lib"],
};

/** Names an index.ts keeps whoever uses them: the contracts DESIGN.md promises. */
export const contracts: Record<string, readonly string[]> = {
  "src/podconfig/index.ts": ["PodStorage"],
  // The API client's list/watch and error API, for the apiserver pod source (DESIGN.md: apiclient).
  "src/apiclient/index.ts": [
    "ApiError",
    "ApiErrorReason",
    "KubeconfigError",
    "ApiClientConfig",
    "isResourceExpired",
    "isUnreachable",
    "ListOptions",
    "ObjectList",
    "PatchType",
    "RequestOptions",
    "WatchEvent",
    "WatchOptions",
    "createReflector",
    "Reflector",
    "ReflectorOptions",
    "ObjectStore",
    "KubeObject",
    "ReflectorStore",
  ],
};

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
  // The init shapes of the CRI messages it builds (MessageInitShape; the messages come from cri's codec).
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
  // The Nodes whose pod CIDRs and addresses make the routes.
  network: ["kubernetes-types"],
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
  // The e2e test of the embedded containerd's image preload, with the image it must find.
  "src/containerd/index.ts": ["PAUSE_IMAGE", "preloadImages"],
};
