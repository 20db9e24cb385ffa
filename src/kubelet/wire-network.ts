/**
 * The pod network area (issue 28). Joined to a cluster, the embedded containerd's bridge takes
 * its range from the Node's spec.podCIDRs unless --pod-cidr is given, and bunlet keeps host-gw
 * routes to the other Nodes' pod CIDRs and the masquerade rules; with an external runtime the
 * Node's pod CIDR goes to the runtime through CRI UpdateRuntimeConfig, as the kubelet's
 * updatePodCIDR does. With --cni-conf-dir a cluster CNI owns the network and this area does
 * nothing; standalone, the bridge keeps --pod-cidr or 10.88.0.0/16.
 */
import type { ApiClient } from "../apiclient/index.ts";
import type { BunletConfig } from "../config/index.ts";
import { DEFAULT_POD_SUBNET, renderedPodNetwork, writeCniConflist } from "../containerd/index.ts";
import type { CriClient } from "../cri/index.ts";
import { createHostNetwork, createPodNetwork, followsNodePodCIDR, networkMode, runCommand, type NetworkMode, type PodCIDRApplier } from "../network/index.ts";
import type { WireBase } from "./wire-base.ts";

/** The network mode of these settings (src/network/mode.ts). */
function modeOf(config: BunletConfig, embedded: boolean): NetworkMode {
  return networkMode({ embedded, cniConfDir: config.cniConfDir, joined: config.kubeconfig !== "", podCIDR: config.podCIDR });
}

/** The embedded containerd's CNI settings; the conflist waits for the Node's range when there is one to wait for. */
export function embeddedNetwork(config: BunletConfig) {
  return {
    podSubnet: config.podCIDR,
    bridgeName: config.cniBridgeName,
    cniConfDir: config.cniConfDir,
    cniBinDir: config.cniBinDir,
    conflist: modeOf(config, true) === "node-range" ? ("later" as const) : ("write" as const),
  };
}

export interface NetworkInputs {
  /** The node area's API client; undefined when standalone. */
  client: ApiClient | undefined;
  cri: CriClient;
  /** True when bunlet runs the embedded containerd. */
  embedded: boolean;
}

/**
 * Where a pod CIDR goes: to an external runtime through CRI UpdateRuntimeConfig, or into the
 * embedded containerd's bridge conflist, with the range the last run applied or a default.
 */
function podCIDRTarget(config: BunletConfig, mode: NetworkMode, cri: CriClient): { apply: PodCIDRApplier; fallbackPodCIDR?: string; appliedPodCIDR?: string } {
  if (mode === "runtime") {
    return { apply: async (cidrs) => void (await cri.runtime.updateRuntimeConfig({ runtimeConfig: { networkConfig: { podCidr: cidrs } } })) };
  }
  const rendered = renderedPodNetwork(config.rootDir);
  return {
    apply: async (cidrs, origin) => {
      const fromNode = origin === "node";
      writeCniConflist({ rootDir: config.rootDir, bridgeName: config.cniBridgeName, podSubnet: cidrs, ipMasq: !fromNode, forceAddress: fromNode });
    },
    // A conflist the last run made from the Node stays in use (pods keep their addresses across a
    // restart, and start while the apiserver is away); without one, the default comes after a wait.
    appliedPodCIDR: rendered && !rendered.ipMasq ? rendered.podSubnet : undefined,
    fallbackPodCIDR: rendered ? undefined : DEFAULT_POD_SUBNET,
  };
}

export function wireNetwork(config: BunletConfig, base: WireBase, inputs: NetworkInputs): AsyncDisposable {
  const { clock, random, signal } = base;
  const log = base.log.with({ component: "network" });
  const mode = modeOf(config, inputs.embedded);
  const none = { [Symbol.asyncDispose]: async () => {} };
  if (!inputs.embedded && (config.cniConfDir !== "" || config.cniBinDir !== "")) {
    log.warn("--cni-conf-dir and --cni-bin-dir apply to the embedded containerd only; the container runtime reads its own CNI configuration", { endpoint: inputs.cri.endpoint });
  }
  if (mode === "cluster-cni") log.info("Pod network from the host's CNI configuration: bunlet renders no bridge and keeps no routes", { cniConfDir: config.cniConfDir });
  if (!inputs.client || !followsNodePodCIDR(mode)) return none;

  const { apply, fallbackPodCIDR, appliedPodCIDR } = podCIDRTarget(config, mode, inputs.cri);
  const network = createPodNetwork(
    { client: inputs.client, apply, host: mode === "node-range" ? createHostNetwork(runCommand) : undefined, clock, random, log },
    { nodeName: config.nodeName, flagPodCIDR: mode === "runtime" ? "" : config.podCIDR, fallbackPodCIDR, appliedPodCIDR },
  );
  const stop = new AbortController();
  const running = network.run(AbortSignal.any([signal, stop.signal]));
  return {
    [Symbol.asyncDispose]: async () => {
      stop.abort();
      await running;
    },
  };
}
