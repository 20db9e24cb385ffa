/**
 * What /metrics/cadvisor shows, gathered per scrape as cAdvisor would see it on a containerd node:
 * - each running container: CPU, memory and writable-layer usage from CRI ListContainerStats
 *   (containerd reads the same cgroup cAdvisor would), its image, and its cgroup (the `id`
 *   label) from the runtime spec in the verbose ContainerStatus;
 * - each ready pod sandbox (the pause container, container=""; with containerd cAdvisor shows it
 *   so, named by the sandbox id with the pause image): CPU and memory from its cgroup, and the
 *   pod's network from /proc/<sandbox pid>/net/dev, the pod's network namespace;
 * - the pod cgroup (container="", name="", image=""), when the sandbox sits in one (a parent
 *   cgroup named after the pod's UID): its CPU and memory, and the pod's network;
 * - the machine's cores and memory;
 * - for each of them, what its cgroup says beyond usage (cgroup-extras.ts): CPU split and
 *   throttling, page cache, mapped files, swap, limit hits, peak, and the CPU and memory spec.
 * The verbose statuses are cached per container and sandbox (a cgroup, pid and image do not
 * change); a container or sandbox whose status cannot be read is left out and
 * container_scrape_error is 1 (one without stats yet is left out for this scrape only).
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { nanosToMs } from "../container/index.ts";
import { ContainerState, PodSandboxState, type CriClient } from "../cri/index.ts";
import type { Clock } from "../lib/index.ts";
import { cadvisorMetrics, type CadvisorContainer, type CadvisorLabels } from "./cadvisor-metrics.ts";
import { cgroupName, cgroupStats, parseNetDev } from "./cgroup.ts";
import { cgroupExtras } from "./cgroup-extras.ts";
import { deviceOf, parseMountinfo } from "./mounts.ts";
import type { MachineInfo } from "./machine.ts";

export interface CadvisorSourceDeps {
  cri: Pick<CriClient, "runtime">;
  clock: Clock;
  machineInfo: () => Promise<MachineInfo>;
  /** cgroupfs (tests point it elsewhere). */
  cgroupRoot?: string;
  /** /proc (tests point it elsewhere). */
  procRoot?: string;
}

interface RuntimeInfo {
  cgroup: string;
  pid: number;
  image: string;
}

/** containerd's verbose info: {"pid": …, "image": …, "runtimeSpec": {"linux": {"cgroupsPath": …}}, "config": {"image": {"image": …}}}. */
function runtimeInfo(info: Record<string, string>): RuntimeInfo | undefined {
  try {
    const v = JSON.parse(info.info ?? "") as { pid?: number; image?: string; runtimeSpec?: { linux?: { cgroupsPath?: string } }; config?: { image?: { image?: string } } };
    const path = v.runtimeSpec?.linux?.cgroupsPath;
    if (!path) return undefined;
    return { cgroup: cgroupName(path), pid: v.pid ?? 0, image: v.image ?? v.config?.image?.image ?? "" };
  } catch {
    return undefined;
  }
}

/** An image named by its digest only ("sha256:…") says nothing on a dashboard; cAdvisor shows the name. */
const imageName = (...candidates: (string | undefined)[]) => candidates.find((c) => c && !/^(sha256:)?[0-9a-f]{64}$/.test(c)) ?? candidates.find((c) => c) ?? "";

export function createCadvisorSource(deps: CadvisorSourceDeps) {
  const { cri, clock } = deps;
  const proc = deps.procRoot ?? "/proc";
  const infos = new Map<string, RuntimeInfo>();

  async function infoOf(id: string, sandbox: boolean, signal?: AbortSignal): Promise<RuntimeInfo | undefined> {
    const cached = infos.get(id);
    if (cached) return cached;
    const r = sandbox
      ? await cri.runtime.podSandboxStatus({ podSandboxId: id, verbose: true }, { signal })
      : await cri.runtime.containerStatus({ containerId: id, verbose: true }, { signal });
    const info = runtimeInfo(r.info);
    if (info && !sandbox) {
      const status = (r as { status?: { image?: { image?: string } } }).status;
      info.image = imageName(status?.image?.image, info.image);
    }
    if (info) infos.set(id, info);
    return info;
  }

  /** procfs, read synchronously as the cgroup files are (cgroup.ts). */
  function network(pid: number, nowMs: number): CadvisorContainer["network"] {
    if (pid <= 0) return undefined;
    try {
      return { timeMs: nowMs, interfaces: parseNetDev(readFileSync(`${proc}/${pid}/net/dev`, "utf8")) };
    } catch {
      return undefined;
    }
  }

  return {
    async metrics(signal?: AbortSignal): Promise<string> {
      const nowMs = clock.now();
      let error = false;
      const failed = () => {
        error = true;
        return undefined;
      };
      const [sandboxes, containers, stats, machine, mountinfo] = await Promise.all([
        cri.runtime.listPodSandbox({ filter: { state: { state: PodSandboxState.SANDBOX_READY } } }, { signal }),
        cri.runtime.listContainers({ filter: { state: { state: ContainerState.CONTAINER_RUNNING } } }, { signal }),
        cri.runtime.listContainerStats({}, { signal }),
        deps.machineInfo().catch(failed),
        readFile(`${proc}/self/mountinfo`, "utf8").catch(() => ""),
      ]);
      const mounts = parseMountinfo(mountinfo);
      const statsOf = new Map(stats.stats.map((s) => [s.attributes?.id ?? "", s]));
      const seen = new Set<string>();
      const out: CadvisorContainer[] = [];
      const podLabels = new Map(sandboxes.items.map((s) => [s.id, { pod: s.metadata?.name ?? "", namespace: s.metadata?.namespace ?? "" }]));

      for (const c of containers.containers) {
        const pod = podLabels.get(c.podSandboxId);
        if (!pod) continue;
        seen.add(c.id);
        // A container started since the runtime listed its stats has none yet: shown at the next scrape.
        const s = statsOf.get(c.id);
        if (!s) continue;
        const info = await infoOf(c.id, false, signal).catch(failed);
        if (!info) {
          error = true;
          continue;
        }
        const labels: CadvisorLabels = { container: c.metadata?.name ?? "", id: info.cgroup, image: imageName(info.image, c.image?.image), name: c.id, ...pod };
        const at = (ts: bigint) => (ts > 0n ? nanosToMs(ts) : nowMs);
        const layer = s.writableLayer;
        const extras = cgroupExtras(info.cgroup, deps.cgroupRoot);
        out.push({
          ...(extras && { extras: { ...extras, timeMs: nowMs } }),
          labels,
          creationMs: nanosToMs(c.createdAt),
          startMs: nanosToMs(c.createdAt),
          ...(s.cpu?.usageCoreNanoSeconds && { cpu: { timeMs: at(s.cpu.timestamp), usageCoreNanoSeconds: s.cpu.usageCoreNanoSeconds.value } }),
          ...(s.memory && {
            memory: { timeMs: at(s.memory.timestamp), usageBytes: s.memory.usageBytes?.value, workingSetBytes: s.memory.workingSetBytes?.value, rssBytes: s.memory.rssBytes?.value },
          }),
          ...(layer?.usedBytes && {
            fs: [{ timeMs: at(layer.timestamp), device: deviceOf(mounts, layer.fsId?.mountpoint ?? ""), usedBytes: layer.usedBytes.value }],
          }),
        });
      }

      for (const sb of sandboxes.items) {
        seen.add(sb.id);
        const info = await infoOf(sb.id, true, signal).catch(failed);
        if (!info) {
          error = true;
          continue;
        }
        const pod = podLabels.get(sb.id)!;
        const net = network(info.pid, nowMs);
        const createdMs = nanosToMs(sb.createdAt);
        const fromCgroup = (id: string, labels: CadvisorLabels): CadvisorContainer => {
          const cg = cgroupStats(id, deps.cgroupRoot);
          const extras = cgroupExtras(id, deps.cgroupRoot);
          return {
            labels,
            ...(extras && { extras: { ...extras, timeMs: nowMs } }),
            creationMs: createdMs,
            startMs: createdMs,
            ...(cg && { cpu: { timeMs: nowMs, usageCoreNanoSeconds: cg.usageCoreNanoSeconds } }),
            ...(cg && { memory: { timeMs: nowMs, usageBytes: cg.usageBytes, workingSetBytes: cg.workingSetBytes, rssBytes: cg.rssBytes } }),
            ...(net && { network: net }),
          };
        };
        out.push(fromCgroup(info.cgroup, { container: "", id: info.cgroup, image: info.image, name: sb.id, ...pod }));
        const parent = dirname(info.cgroup);
        const uid = (sb.metadata?.uid ?? "").replace(/-/g, "_");
        if (uid && basename(parent).replace(/-/g, "_").includes(`pod${uid}`)) {
          out.push(fromCgroup(parent, { container: "", id: parent, image: "", name: "", ...pod }));
        }
      }
      for (const id of infos.keys()) if (!seen.has(id)) infos.delete(id);

      return cadvisorMetrics({
        nowMs,
        containers: out,
        error,
        ...(machine && {
          machine: {
            timeMs: Date.parse(machine.timestamp),
            numCores: machine.num_cores,
            memoryBytes: machine.memory_capacity,
            machineId: machine.machine_id ?? "",
            systemUuid: machine.system_uuid ?? "",
            bootId: machine.boot_id ?? "",
          },
        }),
      });
    },
  };
}

export type CadvisorSource = ReturnType<typeof createCadvisorSource>;
