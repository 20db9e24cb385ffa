/**
 * How the pod network is made, decided once at start from the settings:
 *
 * | mode        | when                                                   | the network area                          |
 * |-------------|--------------------------------------------------------|-------------------------------------------|
 * | runtime     | an external runtime (--container-runtime-endpoint)     | the Node's pod CIDR to it (UpdateRuntimeConfig) |
 * | cluster-cni | the embedded containerd with --cni-conf-dir            | nothing: the host's CNI owns the network  |
 * | node-range  | the embedded containerd, joined, no --pod-cidr         | the bridge's range from the Node, routes  |
 * | fixed-range | the embedded containerd, standalone or with --pod-cidr | nothing: the bridge keeps its range       |
 */
export type NetworkMode = "node-range" | "fixed-range" | "cluster-cni" | "runtime";

export interface NetworkSettings {
  /** bunlet runs the embedded containerd. */
  embedded: boolean;
  /** --cni-conf-dir ("" = none). */
  cniConfDir: string;
  /** bunlet is a node of a cluster (--kubeconfig). */
  joined: boolean;
  /** --pod-cidr ("" = none). */
  podCIDR: string;
}

export function networkMode(s: NetworkSettings): NetworkMode {
  if (!s.embedded) return "runtime";
  if (s.cniConfDir !== "") return "cluster-cni";
  return s.joined && s.podCIDR === "" ? "node-range" : "fixed-range";
}

/** Whether the pod network controller runs: it takes the Node's pod CIDR to the bridge or the runtime. */
export function followsNodePodCIDR(mode: NetworkMode): boolean {
  return mode === "node-range" || mode === "runtime";
}
