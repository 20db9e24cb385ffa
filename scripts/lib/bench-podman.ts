/**
 * `podman kube play` on the same pods and images, in a podman of its own: storage, run root, tmp
 * dir and network config all live in a temp dir, and the settings come from a containers.conf
 * passed through CONTAINERS_CONF, so the host's podman (and /etc/containers) is never touched.
 * Timed from `kube play` to `podman ps` listing every app container as running.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deleteLink, unmountUnder } from "../../test/harness/cleanup.ts";
import { CONTAINER_NAME, exec, execOk, PAUSE_IMAGE, podManifest, pollUntil, type BenchSystem, type PodSet } from "./bench-common.ts";
import { stringify } from "yaml";

/** Away from bunlet's 10.88.0.0/16 and the e2e harness's 10.89.0.0/16. */
const PODMAN_SUBNET = "10.87.0.0/16";

export interface PodmanOptions {
  busyboxTar: string;
  pauseTar: string;
  timeoutMs: number;
}

function linkNames(): Set<string> {
  const out = Bun.spawnSync(["ip", "-o", "link", "show"], { stdout: "pipe", stderr: "ignore" }).stdout.toString();
  return new Set(out.split("\n").map((l) => l.split(":")[1]?.trim().split("@")[0] ?? "").filter(Boolean));
}

/** podman's pod name: there are no namespaces, so the round's namespace goes into the name. */
const podmanName = (pods: PodSet, name: string) => `${pods.namespace}-${name}`;

export function createPodmanSystem(opts: PodmanOptions): BenchSystem {
  let dir: string | undefined;
  let env: Record<string, string> = {};
  let linksBefore = new Set<string>();
  const podman = (...args: string[]) => ["podman", "--root", join(dir!, "root"), "--runroot", join(dir!, "runroot"), ...args];

  async function runningNames(): Promise<Set<string>> {
    const out = await execOk(podman("ps", "--format", "{{.Names}}"), env);
    return new Set(out.split("\n").filter(Boolean));
  }

  return {
    label: "podman",
    async setup(signal) {
      linksBefore = linkNames();
      dir = mkdtempSync(join(tmpdir(), "bunlet-bench-podman-"));
      const conf = join(dir, "containers.conf");
      // infra_image: no registry is reachable, so the pod infra container uses the local pause image.
      writeFileSync(
        conf,
        [
          "[containers]",
          "default_ulimits = []",
          'log_driver = "k8s-file"',
          "[engine]",
          'runtime = "runc"',
          'cgroup_manager = "cgroupfs"',
          'events_logger = "file"',
          `infra_image = "${PAUSE_IMAGE}"`,
          `tmp_dir = "${join(dir, "tmp")}"`,
          "[network]",
          `network_config_dir = "${join(dir, "networks")}"`,
          `default_subnet = "${PODMAN_SUBNET}"`,
          "",
        ].join("\n"),
      );
      env = { CONTAINERS_CONF: conf };
      for (const tar of [opts.busyboxTar, opts.pauseTar]) {
        signal.throwIfAborted();
        await execOk(podman("load", "-q", "-i", tar), env);
      }
    },
    async round(pods: PodSet, signal) {
      const file = join(dir!, `${pods.namespace}.yaml`);
      const docs = pods.names.map((name) => {
        const manifest = podManifest(pods.namespace, podmanName(pods, name)) as { metadata: Record<string, unknown> };
        delete manifest.metadata.namespace;
        return stringify(manifest);
      });
      writeFileSync(file, docs.join("---\n"));
      const wanted = pods.names.map((name) => `${podmanName(pods, name)}-${CONTAINER_NAME}`);
      const t0 = performance.now();
      let seen: number;
      try {
        await execOk(podman("kube", "play", file), env);
        seen = await pollUntil(
          `${wanted.length} running containers in podman ps`,
          async () => {
            const running = await runningNames();
            return wanted.every((n) => running.has(n));
          },
          opts.timeoutMs,
          signal,
        );
      } catch (err) {
        await exec(podman("kube", "down", file), env);
        throw err;
      }
      await execOk(podman("kube", "down", file), env);
      return { ms: seen - t0 };
    },
    async teardown() {
      if (!dir) return;
      // Whatever a failed round left: pods first (they own their infra containers), then strays.
      await exec(podman("pod", "rm", "--all", "--force", "--time", "0"), env);
      await exec(podman("rm", "--all", "--force", "--time", "0"), env);
      unmountUnder(dir);
      rmSync(dir, { recursive: true, force: true });
      dir = undefined;
      // netavark removes its bridge with the last container; this catches a failed teardown.
      for (const link of linkNames()) if (!linksBefore.has(link) && link.startsWith("podman")) deleteLink(link);
    },
  };
}
