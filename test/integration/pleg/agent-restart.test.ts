// The whole agent (startAgent) against the fake CRI: with the event stream, a container that
// exits is restarted in well under 100 ms; with relisting only, within about a relist period.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { ContainerState } from "../../../src/cri/index.ts";
import { startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import { agentConfig, busyboxPod, makeDirs, runAgent, runningPod, waitFor, writeManifest, type RunningAgent, type TestDirs } from "../agent/helpers.ts";

let fake: FakeCri;
let dirs: TestDirs;
let agent: RunningAgent | undefined;

beforeEach(async () => {
  fake = await startFakeCri();
  dirs = makeDirs();
});

afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  await fake.stop();
  dirs.cleanup();
});

const startCalls = () => fake.calls.filter((c) => c.method === "StartContainer").length;
const runningMain = () => fake.state.containers.filter((c) => c.name === "main" && c.state === ContainerState.CONTAINER_RUNNING);

/** Exits the running container and returns how long until the agent started its replacement. */
async function restartLatency(): Promise<number> {
  const [first] = runningMain();
  const started = startCalls();
  const t0 = performance.now();
  fake.exitContainer(first!.id, 1);
  await fake.whenCalled("StartContainer", started + 1, AbortSignal.timeout(5000));
  const ms = performance.now() - t0;
  expect(runningMain().map((c) => c.id)).not.toContain(first!.id);
  return ms;
}

test("evented mode: the agent restarts an exited container in well under 100 ms", async () => {
  writeManifest(dirs, "web.json", busyboxPod("web"));
  agent = await runAgent(agentConfig(dirs, fake.endpoint));
  await waitFor("web Running", () => runningPod(agent!, "web"));
  await fake.events.whenSubscribers(1);
  const ms = await restartLatency();
  expect(ms).toBeLessThan(100);
  expect(agent.lines.some((l) => l.msg === "PLEG switched to generic mode")).toBe(false);
}, 30_000);

test("generic mode: the agent restarts an exited container within about one relist period", async () => {
  writeManifest(dirs, "web.json", busyboxPod("web"));
  agent = await runAgent(agentConfig(dirs, fake.endpoint, ["--feature-gates=EventedPLEG=false"]));
  await waitFor("web Running", () => runningPod(agent!, "web"));
  const ms = await restartLatency();
  expect(ms).toBeLessThan(1500);
  expect(fake.calls.some((c) => c.method === "GetContainerEvents")).toBe(false);
}, 30_000);
