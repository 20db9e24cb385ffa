// The containerd versions e2e tests run against: Debian 12's 1.6 (GetContainerEvents answers
// UNIMPLEMENTED, so bunlet relists), trixie's 1.7 (events: the evented PLEG on a real runtime) and
// sid's 2.x (config version 3). 1.7 and 2.x are unpacked from their .debs by scripts/debs.sh
// into /var/cache/bunlet-debs, never installed; a bookworm host runs them with its own runc.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./images.ts";

export type ContainerdVersion = "1.6" | "1.7" | "2";

/** The versions the PLEG and agent e2e tests run against. */
export const E2E_CONTAINERD_VERSIONS: readonly ContainerdVersion[] = ["1.6", "1.7"];

const SUITES: Record<Exclude<ContainerdVersion, "1.6">, string> = { "1.7": "trixie", "2": "sid" };
const resolved = new Map<ContainerdVersion, string>();

/** Debian's /usr/bin/containerd for 1.6; else the unpacked .deb's, fetched once per machine. */
export function containerdBinary(version: ContainerdVersion): string {
  const known = resolved.get(version);
  if (known) return known;
  let binary: string;
  if (version === "1.6") {
    binary = Bun.which("containerd", { PATH: `${process.env.PATH ?? ""}:/usr/sbin:/usr/bin` }) ?? "containerd";
  } else {
    const fetch = Bun.spawnSync(["bash", join(REPO_ROOT, "scripts/debs.sh"), SUITES[version], "containerd"], { stdout: "pipe", stderr: "pipe" });
    const out = fetch.stdout.toString().trim().split("\n");
    if (fetch.exitCode !== 0) throw new Error(`scripts/debs.sh ${SUITES[version]} containerd failed (exit ${fetch.exitCode}): ${fetch.stderr.toString().trim()}`);
    binary = join(out[out.length - 1]!, "usr/bin/containerd");
  }
  if (!existsSync(binary)) throw new Error(`containerd ${version}: ${binary} does not exist; run scripts/install-deps.sh`);
  const line = Bun.spawnSync([binary, "--version"], { stdout: "pipe" }).stdout.toString().trim();
  const found = line.split(/\s+/)[2] ?? "";
  if (!found.replace(/^v/, "").startsWith(`${version}.`)) {
    throw new Error(`wanted containerd ${version}, ${binary} --version says ${JSON.stringify(line)}`);
  }
  resolved.set(version, binary);
  return binary;
}

let userNamespaceRunc: string | undefined;

/**
 * A runc that can run `hostUsers: false` pods (1.2 or later: idmapped mounts), built once per
 * machine by scripts/build-runc.sh from its Go module (bookworm's runc is 1.1.5, and the trixie
 * and sid .debs need a newer glibc than bookworm's).
 */
export function runcForUserNamespaces(): string {
  if (userNamespaceRunc) return userNamespaceRunc;
  const build = Bun.spawnSync(["bash", join(REPO_ROOT, "scripts/build-runc.sh")], { stdout: "pipe", stderr: "pipe" });
  const out = build.stdout.toString().trim().split("\n");
  if (build.exitCode !== 0) throw new Error(`scripts/build-runc.sh failed (exit ${build.exitCode}): ${build.stderr.toString().trim()}`);
  userNamespaceRunc = out[out.length - 1]!;
  return userNamespaceRunc;
}
