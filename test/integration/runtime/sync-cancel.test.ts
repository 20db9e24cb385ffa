// A sync cancelled while a container starts (the pod began terminating: the pod workers cancel
// the sync in flight, as the kubelet cancels its context on a kill). Issue 17's anomaly: a
// benchmark deleted a pod as soon as CRI listed its container RUNNING, before StartContainer had
// answered; bunlet logged `RunContainerError err="Cancelled on client"` and "the pod worker retries".
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { GrpcCode } from "../../../src/cri/index.ts";
import { c, uniquePod, startHarness, type Harness } from "./harness.ts";

let h: Harness;
beforeEach(async () => (h = await startHarness()));
afterEach(() => h.close());

async function startedErrors(): Promise<number> {
  const metric = await h.metrics.startedContainersErrors.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}

describe("a sync cancelled during StartContainer", () => {
  test("is no start failure: no warning, no error counted, no further container started", async () => {
    const pod = uniquePod({ containers: [c("a"), c("b")] });
    const status = await h.status(pod);
    h.fake.delay("StartContainer", 60_000);
    const cancel = new AbortController();
    const sync = h.rm.syncPod(pod, status, { signal: cancel.signal });
    await h.fake.whenCalled("StartContainer");
    cancel.abort(new DOMException("pod sync cancelled: the pod is terminating", "AbortError"));
    const result = await sync;

    expect(result.error).toBeDefined();
    const failed = result.steps.find((s) => s.action === "StartContainer" && s.target === "a");
    // As the kubelet's result says it: the reason of the step, Go's words for a cancelled call.
    expect(failed?.error).toEqual({ reason: "RunContainerError", message: "context canceled" });
    // "b" is not attempted once the sync is cancelled.
    expect(h.fake.calls.filter((x) => x.method === "StartContainer")).toHaveLength(1);
    expect(result.steps.some((s) => s.target === "b")).toBe(false);
    expect(h.log.lines.filter((l) => l.level === "warn" || l.level === "error")).toEqual([]);
    expect(h.log.lines.some((l) => l.msg === "Container start cancelled: the pod sync was cancelled" && l.containerName === "a")).toBe(true);
    expect(await startedErrors()).toBe(0);
  });

  test("a StartContainer the runtime fails is still a RunContainerError, warned and counted", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    h.fake.failNext("StartContainer", GrpcCode.UNKNOWN, 1, "failed to start containerd task");
    const result = await h.sync(pod);
    const failed = result.steps.find((s) => s.action === "StartContainer" && s.target === "a");
    expect(failed?.error).toBeDefined();
    expect(h.log.lines.some((l) => l.level === "warn" && l.msg === "Container start failed in pod; the pod worker retries" && l.reason === "RunContainerError")).toBe(true);
    expect(await startedErrors()).toBe(1);
  });
});
