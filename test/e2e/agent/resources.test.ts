/**
 * Issue 12's "done when": dist/bunlet runs a YAML static pod against a real containerd and its
 * quantities come out as the kubelet computes them: the downward API env (resourceFieldRef with
 * divisors), the container's CPU shares and quota, memory limit and OOM score adjustment as
 * containerd's runtime spec shows them. The manifest is read with YAML 1.1 scalars (hostNetwork:
 * yes), and one with a divisor the apiserver refuses is refused with its message.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { totalmem } from "node:os";
import { join } from "node:path";
import type { PodList } from "../../../src/api/index.ts";
import { labels } from "../../../src/cri/index.ts";
import { agentFixture, isErrorLine } from "./bunlet.ts";


const manifest = `
apiVersion: v1
kind: Pod
metadata:
  name: resources
spec:
  hostNetwork: yes
  terminationGracePeriodSeconds: 2
  containers:
  - name: main
    image: docker.io/library/busybox:1.36
    command: [sh, -c, "env | sort; exec sleep 3600"]
    resources:
      requests: {cpu: 700m, memory: 8M}
      limits: {cpu: 1, memory: 8.3M}
    env:
    - {name: REQ_CPU_M, valueFrom: {resourceFieldRef: {resource: requests.cpu, divisor: 1m}}}
    - {name: REQ_CPU, valueFrom: {resourceFieldRef: {resource: requests.cpu}}}
    - {name: LIM_MEM, valueFrom: {resourceFieldRef: {resource: limits.memory}}}
    - {name: LIM_MEM_MI, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}
    - {name: REQ_MEM_K, valueFrom: {resourceFieldRef: {resource: requests.memory, divisor: 1k}}}
    - {name: SMALL_LIM_CPU_M, valueFrom: {resourceFieldRef: {containerName: small, resource: limits.cpu, divisor: 1m}}}
  - name: small
    image: docker.io/library/busybox:1.36
    command: [sleep, "3600"]
    resources:
      limits: {cpu: 9m, memory: 32Mi}
`;

const fx = agentFixture({
  name: "resources",
  hostname: "e2e-node",
  waitTimeoutMs: 60_000,
  startInBeforeAll: (f) => {
    writeFileSync(join(f.manifests, "resources.yaml"), manifest);
    writeFileSync(
      join(f.manifests, "divisor.yaml"),
      manifest.replace("name: resources", "name: divisor").replace("divisor: 1m}}}\n    - {name: REQ_CPU,", "divisor: 100m}}}\n    - {name: REQ_CPU,"),
    );
  },
});
const { waitFor } = fx;

/** The running container of the static pod `resources` with this name. */
async function container(name: string) {
  const list = await fx.cri.runtime.listContainers({
    filter: { labelSelector: { [labels.KubernetesPodNameLabel]: "resources-e2e-node", [labels.KubernetesContainerNameLabel]: name } },
  });
  return list.containers.find((c) => c.state === 1);
}

/** The first log lines of a container (CRI log format: time stream tag text). */
function logLines(containerName: string): string[] {
  const podsDir = join(fx.dir, "logs", "pods");
  const podDir = existsSync(podsDir) && readdirSync(podsDir).find((d) => d.startsWith("default_resources-e2e-node_"));
  if (!podDir) return [];
  const file = join(podsDir, podDir, containerName, "0.log");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => l.split(" ").slice(3).join(" "));
}

test("the downward API gives the kubelet's values: ceil(value / divisor) in integers", async () => {
  const env = await waitFor("main's environment in its log", () => {
    const lines = logLines("main");
    return lines.some((l) => l.startsWith("SMALL_LIM_CPU_M=")) ? new Map(lines.map((l) => l.split("=") as [string, string])) : undefined;
  });
  expect(Object.fromEntries([...env].filter(([k]) => /^(REQ|LIM|SMALL)_/.test(k)))).toEqual({
    REQ_CPU_M: "700",
    REQ_CPU: "1",
    LIM_MEM: "8300000",
    LIM_MEM_MI: "8",
    REQ_MEM_K: "8000",
    SMALL_LIM_CPU_M: "9",
  });
});

test("cgroup values and OOM score in the runtime spec are the kubelet's", async () => {
  const spec = async (name: string) => {
    const c = await waitFor(`${name} running`, () => container(name));
    const status = await fx.cri.runtime.containerStatus({ containerId: c.id, verbose: true });
    return JSON.parse(status.info.info ?? "{}").runtimeSpec as {
      linux: { resources: { cpu: { shares: number; quota: number; period: number }; memory: { limit: number } } };
      process: { oomScoreAdj: number };
    };
  };
  const main = await spec("main");
  expect(main.linux.resources.cpu).toMatchObject({ shares: 716, quota: 100_000, period: 100_000 });
  expect(main.linux.resources.memory.limit).toBe(8_300_000);
  // Burstable: 1000 - 1000 * request / capacity in integers, kept within 3..999.
  const adj = Number(1000n - (1000n * 8_000_000n) / BigInt(totalmem()));
  expect(main.process.oomScoreAdj).toBe(Math.min(Math.max(adj, 3), 999));
  const small = await spec("small");
  expect(small.linux.resources.cpu).toMatchObject({ shares: 9, quota: 1000 });
  expect(small.linux.resources.memory.limit).toBe(32 * 2 ** 20);
});

test("the manifest was read with YAML 1.1 scalars, its quantities canonical in /pods", async () => {
  const list = (await (await fetch(`http://127.0.0.1:${fx.bunlet!.readOnlyPort}/pods`)).json()) as PodList;
  const pod = list.items.find((p) => p.metadata.name === "resources-e2e-node");
  expect(pod?.spec.hostNetwork).toBe(true);
  expect(pod?.spec.containers[0].resources).toEqual({ requests: { cpu: "700m", memory: "8M" }, limits: { cpu: "1", memory: "8300k" } });
  expect(pod?.status?.qosClass).toBe("Burstable");
});

test("a divisor the apiserver refuses is refused with its message, naming file and field", async () => {
  const line = await waitFor("the divisor error", () =>
    fx.bunlet!.lines.find((l) => isErrorLine(l) && String(l.file ?? "").endsWith("divisor.yaml")),
  );
  expect(String(line.err)).toBe(
    `${join(fx.manifests, "divisor.yaml")}: spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "requests.cpu": only divisor's values 1m and 1 are supported with the cpu resource`,
  );
});
