// Probes through the whole agent (startAgent) against the fake CRI, on real time: a readiness
// probe flips Ready in /pods both ways and is counted on /metrics/probes, a failing liveness
// probe makes the agent restart the container, and an httpGet readiness probe reaches a server
// on 127.0.0.1.
import { describe, expect, test } from "bun:test";
import type { Pod, Probe } from "../../../src/api/index.ts";
import { ContainerState } from "../../../src/cri/index.ts";
import { BUSYBOX, getPods, useAgentFixture, waitFor, writeManifest, type RunningAgent } from "../agent/helpers.ts";
import { makePod } from "../../fixtures/pods.ts";

const TIMEOUT_MS = 40_000;

const fx = useAgentFixture();
const start = () => fx.start();

function probedPod(name: string, probes: { livenessProbe?: Probe; readinessProbe?: Probe }): Pod {
  return makePod({
    name,
    namespace: "default",
    container: { name: "app", image: BUSYBOX, command: ["sleep", "3600"], ...probes },
    spec: { restartPolicy: "Always", terminationGracePeriodSeconds: 2 },
  });
}

async function podNamed(agent: RunningAgent, name: string): Promise<Pod | undefined> {
  return (await getPods(agent)).items.find((p) => p.metadata.name === `${name}-node1`);
}

/** The pod's Ready condition and its container's ready flag, once the container runs. */
async function readiness(agent: RunningAgent, name: string): Promise<{ ready: boolean; condition: string } | undefined> {
  const pod = await podNamed(agent, name);
  const c = pod?.status?.containerStatuses?.[0];
  if (!c?.state?.running) return undefined;
  return { ready: c.ready, condition: pod!.status!.conditions!.find((x) => x.type === "Ready")!.status };
}

/** prober_probe_total of the pod's container by probe type and result, from /metrics/probes. */
async function probeCount(agent: RunningAgent, pod: string, probeType: string, result: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${agent.readOnlyPort}/metrics/probes`);
  expect(res.status).toBe(200);
  const want = [`probe_type="${probeType}"`, `result="${result}"`, 'container="app"', `pod="${pod}-node1"`, 'namespace="default"', "pod_uid="];
  const line = (await res.text()).split("\n").find((l) => l.startsWith("prober_probe_total{") && want.every((w) => l.includes(w)));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

describe("probes in the agent", () => {
  test("a readiness probe decides Ready in /pods, and a failure takes it back", async () => {
    fx.fake.setExecResult(["check-ready"], { exitCode: 1, stdout: "not yet" });
    const agent = await start();
    writeManifest(fx.dirs, "web.json", probedPod("web", { readinessProbe: { exec: { command: ["check-ready"] }, periodSeconds: 1, failureThreshold: 1 } }));

    // The failed probe's own log line, not the ExecSync call's arrival (its answer may still be on
    // the way back), is what says a probe ran and failed.
    const failedProbe = (l: Record<string, unknown>) => l.msg === "Probe failed" && l.probeType === "readiness" && l.output === "not yet";
    await waitFor("the container running, probed and not ready", async () => {
      const r = await readiness(agent, "web");
      return r && !r.ready && r.condition === "False" && agent.lines.some(failedProbe);
    }, TIMEOUT_MS);

    expect(await probeCount(agent, "web", "Readiness", "failed")).toBeGreaterThan(0);

    fx.fake.setExecResult(["check-ready"], { exitCode: 0 });
    await waitFor("Ready=True", async () => {
      const r = await readiness(agent, "web");
      return r?.ready && r.condition === "True";
    }, TIMEOUT_MS);
    const successes = await probeCount(agent, "web", "Readiness", "successful");
    expect(successes).toBeGreaterThan(0);
    await waitFor("the success counter moving with the next probe", async () => (await probeCount(agent, "web", "Readiness", "successful")) > successes, TIMEOUT_MS);
    // The probe series are on /metrics/probes only, as in the kubelet.
    expect(await (await fetch(`http://127.0.0.1:${agent.readOnlyPort}/metrics`)).text()).not.toContain("prober_probe_total");

    fx.fake.setExecResult(["check-ready"], { exitCode: 1 });
    await waitFor("Ready=False again", async () => {
      const r = await readiness(agent, "web");
      return r && !r.ready && r.condition === "False";
    }, TIMEOUT_MS);
    // Readiness never restarts anything.
    expect((await podNamed(agent, "web"))!.status!.containerStatuses![0]!.restartCount).toBe(0);
  }, 60_000);

  test("a failing liveness probe makes the agent kill (with the probe's grace period) and restart the container", async () => {
    fx.fake.setExecResult(["check-alive"], { exitCode: 0 });
    const agent = await start();
    writeManifest(fx.dirs, "live.json", probedPod("live", { livenessProbe: { exec: { command: ["check-alive"] }, periodSeconds: 1, failureThreshold: 2, terminationGracePeriodSeconds: 5 } }));

    const first = await waitFor("the container running and probed", () => {
      const c = fx.fake.state.containers.find((x) => x.name === "app" && x.state === ContainerState.CONTAINER_RUNNING);
      return c && fx.fake.calls.some((x) => x.method === "ExecSync") ? c : undefined;
    }, TIMEOUT_MS);

    fx.fake.setExecResult(["check-alive"], { exitCode: 1, stderr: "dead" });
    const second = await waitFor("a new container replacing the unhealthy one", () =>
      fx.fake.state.containers.find((x) => x.name === "app" && x.id !== first.id && x.state === ContainerState.CONTAINER_RUNNING),
    TIMEOUT_MS);
    fx.fake.setExecResult(["check-alive"], { exitCode: 0 });

    expect(fx.fake.state.container(first.id)?.state ?? ContainerState.CONTAINER_EXITED).toBe(ContainerState.CONTAINER_EXITED);
    const stop = fx.fake.calls.find((c) => c.method === "StopContainer" && (c.request as unknown as { containerId: string }).containerId === first.id);
    expect((stop!.request as unknown as { timeout: bigint }).timeout).toBe(5n); // not the pod's 2 s
    expect(agent.lines.some((l) => l.msg === "Probe failed" && l.probeType === "liveness" && l.output === "dead")).toBe(true);
    await waitFor("restartCount 1 in /pods", async () => {
      const c = (await podNamed(agent, "live"))?.status?.containerStatuses?.[0];
      return c?.restartCount === 1 && c.containerID === `containerd://${second.id}`;
    }, TIMEOUT_MS);
  }, 60_000);

  test("an httpGet readiness probe reaches its host and port", async () => {
    let healthy = false;
    const paths: string[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => (paths.push(new URL(req.url).pathname), new Response(healthy ? "ok" : "warming up", { status: healthy ? 200 : 503 })),
    });
    try {
      const agent = await start();
      writeManifest(fx.dirs, "http.json", probedPod("http", { readinessProbe: { httpGet: { host: "127.0.0.1", port: server.port!, path: "/healthz" }, periodSeconds: 1 } }));
      const failedProbe = (l: Record<string, unknown>) => l.msg === "Probe failed" && l.probeType === "readiness";
      await waitFor("a probe answered 503, the container not ready", async () => agent.lines.some(failedProbe) && (await readiness(agent, "http"))?.ready === false, TIMEOUT_MS);
      expect(paths[0]).toBe("/healthz");
      healthy = true;
      await waitFor("Ready=True", async () => (await readiness(agent, "http"))?.condition === "True", TIMEOUT_MS);
    } finally {
      server.stop(true);
    }
  }, 60_000);
});
