/**
 * A PodLister straight over CRI, for the PLEG's integration tests and bench: ListPodSandbox +
 * ListContainers grouped by the kubelet's pod UID label, and per-pod status calls. It stands in
 * for the runtime manager's getPods/getPodStatus so these tests exercise the PLEG alone.
 */
import { labels, PodSandboxState, ContainerState, type CriClient } from "../../../src/cri/index.ts";
import { nsToMs, toRuntimeContainerStatus, toRuntimeSandboxStatus, type PodLister } from "../../../src/pleg/index.ts";
import type { ContainerState as RefState, PodStatus, RuntimePod } from "../../../src/runtime/types.ts";

function refState(state: ContainerState): RefState {
  if (state === ContainerState.CONTAINER_RUNNING) return "running";
  if (state === ContainerState.CONTAINER_EXITED) return "exited";
  if (state === ContainerState.CONTAINER_CREATED) return "created";
  return "unknown";
}

export function criPodLister(cri: CriClient): PodLister {
  return {
    async getPods(opts = {}) {
      const [{ items }, { containers }] = await Promise.all([
        cri.runtime.listPodSandbox({}, { signal: opts.signal }),
        cri.runtime.listContainers({}, { signal: opts.signal }),
      ]);
      const pods = new Map<string, RuntimePod>();
      const podFor = (uid: string, name: string, namespace: string) => {
        let pod = pods.get(uid);
        if (!pod) pods.set(uid, (pod = { uid, name, namespace, sandboxes: [], containers: [] }));
        return pod;
      };
      for (const s of items) {
        if (!s.metadata) continue;
        podFor(s.metadata.uid, s.metadata.name, s.metadata.namespace).sandboxes.push({
          id: s.id,
          name: labels.PodInfraContainerName,
          state: s.state === PodSandboxState.SANDBOX_READY ? "running" : "exited",
          createdAt: nsToMs(s.createdAt),
          hash: "",
          sandboxId: s.id,
          image: "",
        });
      }
      for (const c of containers) {
        const uid = c.labels[labels.KubernetesPodUIDLabel];
        if (!uid) continue;
        const pod = podFor(uid, c.labels[labels.KubernetesPodNameLabel] ?? "", c.labels[labels.KubernetesPodNamespaceLabel] ?? "");
        pod.containers.push({
          id: c.id,
          name: c.labels[labels.KubernetesContainerNameLabel] ?? c.metadata?.name ?? "",
          state: refState(c.state),
          createdAt: nsToMs(c.createdAt),
          hash: c.annotations[labels.ContainerHashLabel] ?? "",
          sandboxId: c.podSandboxId,
          image: c.image?.image ?? "",
        });
      }
      return [...pods.values()];
    },

    async getPodStatus(uid, name, namespace, opts = {}): Promise<PodStatus> {
      const call = { signal: opts.signal };
      const filter = { labelSelector: { [labels.KubernetesPodUIDLabel]: uid } };
      const { items } = await cri.runtime.listPodSandbox({ filter }, call);
      items.sort((a, b) => Number(b.createdAt - a.createdAt));
      const sandboxStatuses = [];
      for (const s of items) {
        const { status } = await cri.runtime.podSandboxStatus({ podSandboxId: s.id }, call);
        if (status) sandboxStatuses.push(toRuntimeSandboxStatus(status));
      }
      const { containers } = await cri.runtime.listContainers({ filter }, call);
      const containerStatuses = [];
      for (const c of containers) {
        const { status } = await cri.runtime.containerStatus({ containerId: c.id }, call);
        if (status) containerStatuses.push(toRuntimeContainerStatus(status, c.podSandboxId));
      }
      containerStatuses.sort((a, b) => b.createdAt - a.createdAt);
      const newest = sandboxStatuses[0];
      const ips = newest?.state === "ready" ? newest.ips : [];
      return { uid, name, namespace, ips, sandboxStatuses, containerStatuses };
    },
  };
}
