/**
 * The node's containerd for scripts/conformance.sh: the test harness's containerd (the config bunlet
 * renders for its embedded one, plus a `test-handler` runc handler for the RuntimeClass specs, its
 * own bridge and /24), shared unchanged by a bunlet node and an upstream-kubelet node so the two
 * runs differ only in the agent. Prints `endpoint=<unix://…>` once ready, runs until SIGTERM or
 * SIGINT, then removes every sandbox and container and stops.
 *
 *   bun scripts/lib/conformance-containerd.ts [REGISTRY_HOST]
 */
import { startTestContainerd } from "../../test/harness/containerd.ts";

const ctd = await startTestContainerd({ name: "conformance", registryHost: process.argv[2] });
console.log(`endpoint=${ctd.endpoint}`);
console.log(`root=${ctd.rootDir}`);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await ctd.stop();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
setInterval(() => {}, 1 << 30);
