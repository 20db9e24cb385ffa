// The whole agent (startAgent) against the fake CRI: a container that exits is restarted, and
// what made the agent notice is pinned by the order of the CRI calls: with the event stream the
// ContainerDied event (no relist between the exit and the restart), with relisting only the
// relist after the exit. How fast each is: scripts/bench-pleg.ts.
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

const runningMain = () => fake.state.containers.filter((c) => c.name === "main" && c.state === ContainerState.CONTAINER_RUNNING);
/** A relist: the unfiltered ListPodSandbox of getPods({ all: true }) (housekeeping lists only ready sandboxes). */
const isRelist = (c: FakeCri["calls"][number]) => c.method === "ListPodSandbox" && !(c.request as { filter?: unknown }).filter;

/** Exits the running container; returns the CRI calls from the exit to the replacement's StartContainer. */
async function exitAndRestart(): Promise<FakeCri["calls"]> {
  const [first] = runningMain();
  const from = fake.calls.length;
  const starts = fake.callNames().filter((m) => m === "StartContainer").length;
  fake.exitContainer(first!.id, 1);
  await fake.whenCalled("StartContainer", starts + 1, AbortSignal.timeout(15_000));
  expect(runningMain().map((c) => c.id)).not.toContain(first!.id);
  const calls = fake.calls.slice(from);
  return calls.slice(0, calls.findIndex((c) => c.method === "StartContainer") + 1);
}

const diedEvents = (a: RunningAgent) => a.lines.filter((l) => l.msg === "SyncLoop (PLEG): event for pod" && l.type === "ContainerDied");

test("evented mode: the ContainerDied event restarts the container, with no relist in between", async () => {
  writeManifest(dirs, "web.json", busyboxPod("web"));
  agent = await runAgent(agentConfig(dirs, fake.endpoint));
  await waitFor("web Running", () => runningPod(agent!, "web"));
  await fake.events.whenSubscribers(1);
  const calls = await exitAndRestart();
  expect(calls.filter(isRelist)).toEqual([]);
  expect(calls.map((c) => c.method)).toContain("CreateContainer");
  expect(diedEvents(agent)).toHaveLength(1);
  expect(agent.lines.some((l) => l.msg === "PLEG switched to generic mode")).toBe(false);
}, 30_000);

test("generic mode: the relist after the exit reports it, and the restart follows", async () => {
  writeManifest(dirs, "web.json", busyboxPod("web"));
  agent = await runAgent(agentConfig(dirs, fake.endpoint, ["--feature-gates=EventedPLEG=false"]));
  await waitFor("web Running", () => runningPod(agent!, "web"));
  const calls = await exitAndRestart();
  const relist = calls.findIndex(isRelist);
  expect(relist).toBeGreaterThanOrEqual(0);
  expect(relist).toBeLessThan(calls.findIndex((c) => c.method === "CreateContainer"));
  expect(diedEvents(agent)).toHaveLength(1);
  expect(fake.calls.some((c) => c.method === "GetContainerEvents")).toBe(false);
}, 30_000);
