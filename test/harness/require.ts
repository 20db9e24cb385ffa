import { existsSync } from "node:fs";

const INSTALL = "run `sudo scripts/install-deps.sh` (apt: containerd runc containernetworking-plugins busybox-static docker-registry skopeo iproute2 iptables)";

/** e2e tests need root (containerd, mounts, bridges). They fail, never skip, when it is missing. */
function requireRoot(): void {
  if (process.getuid?.() !== 0) {
    throw new Error(`e2e tests start a real containerd and need root (uid 0), found uid ${process.getuid?.()}; run them as root (CI does)`);
  }
}

/** Fails with the install command when a tool the e2e harness drives is missing. */
function requireTools(tools: readonly string[] = ["containerd", "ctr", "runc", "ip", "iptables"]): void {
  const missing = tools.filter((tool) => !Bun.which(tool, { PATH: `${process.env.PATH ?? ""}:/usr/sbin:/sbin` }));
  if (!existsSync("/usr/lib/cni/bridge")) missing.push("/usr/lib/cni/bridge");
  if (missing.length > 0) throw new Error(`e2e prerequisites missing: ${missing.join(", ")}; ${INSTALL}`);
}

/** Both checks, for the top of an e2e test file. */
export function requireE2e(tools?: readonly string[]): void {
  requireRoot();
  requireTools(tools);
}
