import { describe, expect, test } from "bun:test";
import { runtimeHealthCheck } from "../../../src/podsync/health.ts";
import { RuntimeState } from "../../../src/podsync/runtime-state.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import type { RuntimeHandlerStatus } from "../../../src/runtime/index.ts";

type Answer = { runtimeReady: boolean; networkReady: boolean; message: string; handlers?: RuntimeHandlerStatus[] } | Error;

function harness(first: Answer, clock = new FakeClock()) {
  let answer = first;
  let calls = 0;
  const log = createMemoryLogger();
  const state = new RuntimeState(
    {
      runtimeStatus: async () => {
        calls++;
        if (answer instanceof Error) throw answer;
        return { handlers: [], ...answer };
      },
    },
    log,
    () => clock.now(),
  );
  return { state, log, set: (a: Answer) => (answer = a), calls: () => calls };
}

describe("runtime state", () => {
  test("the handlers of the last good answer are kept (HandlerSupportsUserNamespaces reads them); a failed call keeps them", async () => {
    const signal = new AbortController().signal;
    const handlers = [{ name: "runc", recursiveReadOnlyMounts: true, userNamespaces: true }];
    const h = harness({ runtimeReady: true, networkReady: true, message: "", handlers });
    expect(h.state.runtimeHandlers()).toEqual([]);
    await h.state.check(signal);
    expect(h.state.runtimeHandlers()).toEqual(handlers);
    h.set(new Error("connection refused"));
    await h.state.check(signal);
    expect(h.state.runtimeHandlers()).toEqual(handlers);
    h.set({ runtimeReady: true, networkReady: true, message: "" });
    await h.state.check(signal);
    expect(h.state.runtimeHandlers()).toEqual([]);
  });

  test("the node's Ready reasons in the kubelet's words: down only after 30 s without a good Status call", async () => {
    const clock = new FakeClock();
    const h = harness({ runtimeReady: true, networkReady: false, message: "NetworkReady=false reason:NetworkPluginNotReady message:cni not initialized" }, clock);
    const signal = new AbortController().signal;
    expect(h.state.nodeReadinessErrors()).toEqual({ runtime: ["container runtime status check may not have completed yet"], network: [] });
    await h.state.check(signal);
    expect(h.state.nodeReadinessErrors()).toEqual({
      runtime: [],
      network: ["container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:cni not initialized"],
    });
    h.set(new Error("connect ENOENT"));
    await clock.advance(10_000);
    await h.state.check(signal);
    expect(h.state.nodeReadinessErrors().runtime).toEqual([]);
    await clock.advance(21_000);
    await h.state.check(signal);
    expect(h.state.nodeReadinessErrors()).toEqual({ runtime: ["container runtime is down"], network: [] });
    h.set({ runtimeReady: false, networkReady: true, message: "RuntimeReady=false reason:Booting message:wait" });
    await h.state.check(signal);
    expect(h.state.nodeReadinessErrors().runtime).toEqual(["container runtime is down", "container runtime not ready: RuntimeReady=false reason:Booting message:wait"]);
    h.set({ runtimeReady: true, networkReady: true, message: "" });
    await h.state.check(signal);
    expect(h.state.nodeReadinessErrors()).toEqual({ runtime: [], network: [] });
  });

  test.each([
    ["before the first check", undefined, "container runtime status check may not have completed yet", undefined],
    ["ready", { runtimeReady: true, networkReady: true, message: "" }, undefined, undefined],
    ["network not ready", { runtimeReady: true, networkReady: false, message: "cni not initialized" }, undefined, "cni not initialized"],
    ["runtime not ready", { runtimeReady: false, networkReady: false, message: "booting" }, "container runtime not ready: booting", undefined],
    ["Status fails", new Error("connect ENOENT"), "container runtime is down: connect ENOENT", undefined],
  ] as const)("%s", async (_name, answer, runtimeError, networkError) => {
    const h = harness(answer ?? new Error("unused"));
    if (answer !== undefined) await h.state.check(new AbortController().signal);
    expect(h.state.runtimeError()).toBe(runtimeError);
    expect(h.state.networkError()).toBe(networkError);
  });

  test("checks every 5 s while ready and every second while down; logs only transitions", async () => {
    const clock = new FakeClock();
    const h = harness({ runtimeReady: true, networkReady: true, message: "" });
    const ac = new AbortController();
    const done = h.state.run(clock, ac.signal);
    await clock.advance(0);
    expect(h.calls()).toBe(1);
    await clock.advance(5000);
    expect(h.calls()).toBe(2);
    h.set(new Error("gone"));
    await clock.advance(5000);
    expect(h.state.runtimeError()).toBe("container runtime is down: gone");
    await clock.advance(3000);
    expect(h.calls()).toBe(6);
    h.set({ runtimeReady: true, networkReady: true, message: "" });
    await clock.advance(1000);
    expect(h.state.runtimeError()).toBeUndefined();
    expect(h.log.lines.map((l) => l.level)).toEqual(["error", "info"]);
    ac.abort();
    await done;
    expect(clock.pending).toBe(0);
  });

  test("the runtime health check names the runtime problem", async () => {
    const h = harness(new Error("connection refused"));
    await h.state.check(new AbortController().signal);
    expect(runtimeHealthCheck(() => h.state.runtimeError()).check()).toEqual({
      ok: false,
      message: "container runtime is down: connection refused",
    });
  });
});
