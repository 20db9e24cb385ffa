import { describe, expect, test } from "bun:test";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createRuntimeClassManager, RuntimeClassNotFoundError } from "../../../src/runtimeclass/manager.ts";

function setup(items: object[]) {
  const calls: string[] = [];
  const client = {
    async list<T>(path: string) {
      calls.push(path);
      return { metadata: { resourceVersion: "1" }, items: items as T[] };
    },
    async *watch(_path: string, opts: { signal?: AbortSignal }): AsyncIterable<never> {
      await new Promise((_r, reject) => opts.signal?.addEventListener("abort", () => reject(opts.signal!.reason)));
    },
  };
  const clock = new FakeClock();
  const m = createRuntimeClassManager({ client: client as never, clock, random: () => 0, log: createMemoryLogger() });
  return { m, calls, clock };
}

describe("RuntimeClass manager", () => {
  test("a pod's RuntimeClass is its handler; no class is the default handler; an unknown one is NotFound in the lister's words", async () => {
    const t = setup([{ apiVersion: "node.k8s.io/v1", kind: "RuntimeClass", metadata: { name: "gvisor" }, handler: "runsc" }]);
    const stop = new AbortController();
    const running = t.m.run(stop.signal);
    await t.clock.settle();
    expect(t.calls[0]).toStartWith("/apis/node.k8s.io/v1/runtimeclasses");
    expect(t.m.lookupRuntimeHandler("gvisor")).toBe("runsc");
    expect(t.m.lookupRuntimeHandler(undefined)).toBe("");
    expect(t.m.lookupRuntimeHandler("")).toBe("");
    expect(() => t.m.lookupRuntimeHandler("kata")).toThrow(new RuntimeClassNotFoundError("kata"));
    expect(() => t.m.lookupRuntimeHandler("kata")).toThrow('runtimeclass.node.k8s.io "kata" not found');
    stop.abort();
    await running;
  });
});
