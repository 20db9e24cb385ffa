/**
 * The labels a node gives its own Node (the kubelet's initialNode): kubernetes.io/hostname,
 * kubernetes.io/os and kubernetes.io/arch, then --node-labels over them. Registration sends
 * them; pod admission matches nodeSelector and the OS label against the same set, so a pod is
 * judged against the Node the cluster sees.
 */

export interface NodeLabelInputs {
  /** The node's hostname (the kubelet's --hostname-override, else the OS hostname). */
  hostname: string;
  /** runtime.GOOS and runtime.GOARCH as the machine reports them ("linux", "amd64"). */
  operatingSystem: string;
  architecture: string;
  /** --node-labels; they win over the defaults, as in the kubelet. */
  nodeLabels: Readonly<Record<string, string>>;
}

export function nodeLabels(inputs: NodeLabelInputs): Record<string, string> {
  return {
    "kubernetes.io/hostname": inputs.hostname,
    "kubernetes.io/os": inputs.operatingSystem,
    "kubernetes.io/arch": inputs.architecture,
    ...inputs.nodeLabels,
  };
}
