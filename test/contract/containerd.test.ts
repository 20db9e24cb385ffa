// The CRI contract against a real containerd 1.6 started by the e2e harness (needs root).
import { startTestContainerd } from "../harness/containerd.ts";
import { criContract } from "./cri-contract.ts";

criContract("containerd", async () => {
  const ctd = await startTestContainerd({ name: "cri-contract" });
  return {
    endpoint: ctd.endpoint,
    images: { busybox: "docker.io/library/busybox:1.36", pause: "registry.k8s.io/pause:3.10.2" },
    eventsSupported: false,
    stop: () => ctd.stop(),
  };
});
