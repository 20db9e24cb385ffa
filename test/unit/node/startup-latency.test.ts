import { expect, test } from "bun:test";
import { Registry } from "prom-client";
import { FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { NodeStartupLatencyTracker } from "../../../src/node/index.ts";

async function gauges(metrics: ReturnType<typeof createMetrics>) {
  const v = async (g: { get(): Promise<{ values: { value: number }[] }> }) => (await g.get()).values[0]?.value;
  return {
    preKubelet: await v(metrics.nodeStartupPreKubelet),
    preRegistration: await v(metrics.nodeStartupPreRegistration),
    registration: await v(metrics.nodeStartupRegistration),
    postRegistration: await v(metrics.nodeStartupPostRegistration),
    total: await v(metrics.nodeStartup),
  };
}

test("boot → start → first registration attempt → Node created → first Ready, each set once", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const metrics = createMetrics(new Registry());
  const tracker = new NodeStartupLatencyTracker({ clock, metrics, bootMs: clock.now() - 30_000 });
  await clock.advance(500);
  tracker.recordAttemptRegisterNode();
  await clock.advance(1500);
  tracker.recordAttemptRegisterNode();
  tracker.recordNodeReady();
  expect(await gauges(metrics)).toEqual({ preKubelet: 0, preRegistration: 0, registration: 0, postRegistration: 0, total: 0 });
  tracker.recordRegisteredNewNode();
  await clock.advance(3000);
  tracker.recordNodeReady();
  await clock.advance(9000);
  tracker.recordNodeReady();
  tracker.recordRegisteredNewNode();
  expect(await gauges(metrics)).toEqual({ preKubelet: 30, preRegistration: 0.5, registration: 1.5, postRegistration: 3, total: 35 });
});

test("a Node registered before this run (found, not created) leaves every duration at 0", async () => {
  const clock = new FakeClock();
  const metrics = createMetrics(new Registry());
  const tracker = new NodeStartupLatencyTracker({ clock, metrics, bootMs: undefined });
  tracker.recordAttemptRegisterNode();
  await clock.advance(1000);
  tracker.recordNodeReady();
  expect(await gauges(metrics)).toEqual({ preKubelet: 0, preRegistration: 0, registration: 0, postRegistration: 0, total: 0 });
});
