/**
 * While statuses flow (the apiserver answered the sync within the last second) the status sync
 * patches against the apiserver's copy of the pod it already holds (the watch's, or the answer to
 * its last patch, whichever is newer by resourceVersion) and GETs the pod only when neither can
 * be trusted; after a quiet second it GETs first, as the kubelet always does. The apiserver is a recording stand-in client: what matters here is
 * which requests are made and what each patch is computed against; the e2e tests run the same
 * code against a kube-apiserver.
 */
import { describe, expect, test } from "bun:test";
import type { Pod, PodStatus } from "../../../src/api/index.ts";
import { ApiError } from "../../../src/apiclient/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createStatusManager, createStatusSync } from "../../../src/status/index.ts";
import { newerCopy } from "../../../src/status/api-sync.ts";
import { c, podWith, running } from "./states.ts";

const withRV = (rv: string | undefined, status: PodStatus = {}): Pod => ({ ...podWith({ containers: [c("app")] }), status, metadata: { ...podWith({}).metadata, resourceVersion: rv } });

describe("newerCopy", () => {
  const cases: [string, string | undefined, string | undefined | null, string | undefined][] = [
    // [what, a's resourceVersion, b's (null: no b), the winner's]
    ["no other copy", "5", null, "5"],
    ["the higher revision wins", "5", "12", "12"],
    ["compared as numbers, not as text", "12", "5", "12"],
    ["equal: the first", "7", "7", "7"],
    ["the first without a revision: not comparable", undefined, "5", undefined],
    ["the first with a version that is not a revision", "abc", "5", undefined],
    ["a leading zero is not a revision", "05", null, undefined],
    ["the other without a revision: the first", "5", undefined, "5"],
  ];
  test.each(cases)("%s", (_, a, b, want) => {
    const got = newerCopy(withRV(a), b === null ? undefined : withRV(b));
    expect(got?.metadata.resourceVersion).toBe(want);
  });
});

interface Call {
  verb: "get" | "patch";
  path: string;
  body?: Record<string, unknown>;
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 500) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** A status sync over one pod whose watch copy the test sets, against a recording client. */
function harness(opts: { watched: Pod; patchAnswer?: (body: Record<string, unknown>, n: number) => Pod | Error; getAnswer?: () => Pod }) {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const log = createMemoryLogger();
  const statusManager = createStatusManager({ clock, log });
  const calls: Call[] = [];
  let watched = opts.watched;
  const client = {
    get: async <T>(path: string) => {
      calls.push({ verb: "get", path });
      return (opts.getAnswer?.() ?? watched) as T;
    },
    patch: async <T>(path: string, body: unknown) => {
      const b = body as Record<string, unknown>;
      calls.push({ verb: "patch", path, body: b });
      const answer = opts.patchAnswer?.(b, calls.filter((x) => x.verb === "patch").length);
      if (answer instanceof Error) throw answer;
      return answer as T;
    },
    delete: async () => {
      throw new Error("no delete expected");
    },
  };
  const sync = createStatusSync({ client, statusManager, podOf: (uid) => (uid === "uid-1" ? watched : undefined), mirrorPodOf: () => undefined, clock, log });
  const stop = new AbortController();
  const done = sync.run(stop.signal);
  return {
    calls,
    log,
    clock,
    setWatched: (p: Pod) => {
      watched = p;
    },
    setStatus: (status: PodStatus) => statusManager.setPodStatus(watched, status),
    async stop() {
      stop.abort();
      await done;
    },
  };
}

const patchStatus = (call: Call | undefined) => (call?.body?.status ?? {}) as Record<string, unknown>;

describe("patching against the copy bunlet holds", () => {
  test("after a quiet second the pod is read first, as the kubelet does; while statuses flow, one PATCH against the watch's copy", async () => {
    const watched = withRV("5", { phase: "Pending", qosClass: "BestEffort" });
    const h = harness({ watched, patchAnswer: () => withRV("6", { phase: "Pending", qosClass: "BestEffort", startTime: "2026-01-01T12:00:00Z" }) });
    h.setStatus({ phase: "Pending", qosClass: "BestEffort" });
    await until("the first patch", () => h.calls.length === 2);
    expect(h.calls.map((x) => x.verb)).toEqual(["get", "patch"]);
    // Within the second: the watch's copy (a controller's change, revision 9) and no GET.
    h.setWatched(withRV("9", { phase: "Pending", qosClass: "BestEffort", startTime: "2026-01-01T12:00:00Z" }));
    h.setStatus({ phase: "Running", qosClass: "BestEffort", containerStatuses: [running("app")] });
    await until("the second patch", () => h.calls.length === 3);
    expect(h.calls.map((x) => x.verb)).toEqual(["get", "patch", "patch"]);
    expect(h.calls[2]!.path).toBe("/api/v1/namespaces/ns/pods/p/status");
    expect(h.calls[2]!.body?.metadata).toEqual({ uid: "uid-1" });
    // qosClass and startTime are what the apiserver has already: not sent again.
    expect(Object.keys(patchStatus(h.calls[2])).sort()).toEqual(["containerStatuses", "phase"]);
    // A quiet second and more: the next change reads the pod first again.
    await h.clock.advance(1_001);
    h.setStatus({ phase: "Running", qosClass: "BestEffort", containerStatuses: [running("app")], message: "m" });
    await until("the third patch", () => h.calls.length === 5);
    expect(h.calls.map((x) => x.verb)).toEqual(["get", "patch", "patch", "get", "patch"]);
    await h.stop();
  });

  test("the next change is computed against the patch's answer when the watch has not caught up", async () => {
    const watched = withRV("5", { phase: "Pending" });
    const h = harness({ watched, patchAnswer: (_, n) => withRV(String(5 + n), { phase: "Running", message: "from the answer", startTime: "2026-01-01T12:00:00Z" }) });
    h.setStatus({ phase: "Running" });
    await until("the first patch", () => h.calls.length === 2);
    h.setStatus({ phase: "Running", message: "from the answer", reason: "R" });
    await until("the second patch", () => h.calls.length === 3);
    // The watch copy (5) still says Pending without a message; the answer (6) says Running with it.
    expect(h.calls.map((x) => x.verb)).toEqual(["get", "patch", "patch"]);
    expect(patchStatus(h.calls[2])).toEqual({ reason: "R" });
    await h.stop();
  });

  test("a newer watch copy wins over an older answer, and another owner's condition is kept", async () => {
    const watched = withRV("5", { phase: "Pending" });
    const h = harness({ watched, patchAnswer: (_, n) => withRV(String(5 + n), { phase: "Running" }) });
    h.setStatus({ phase: "Running" });
    await until("the first patch", () => h.calls.length === 2);
    // A controller added its condition (revision 9) after bunlet's patch (6).
    h.setWatched(withRV("9", { phase: "Running", conditions: [{ type: "example.com/Gate", status: "True" }] }));
    h.setStatus({ phase: "Running", message: "m" });
    await until("the second patch", () => h.calls.length === 3);
    expect(h.calls.map((x) => x.verb)).toEqual(["get", "patch", "patch"]);
    const status = patchStatus(h.calls[2]);
    expect(status.message).toBe("m");
    // Nothing removes the controller's condition.
    expect(JSON.stringify(status)).not.toContain("example.com/Gate");
    await h.stop();
  });

  test("a pod copy without a resourceVersion (started from the checkpoint) is read from the apiserver first", async () => {
    const watched = withRV(undefined, { phase: "Pending" });
    const h = harness({ watched, getAnswer: () => withRV("5", { phase: "Pending" }), patchAnswer: (_, n) => ({ ...withRV("6", { phase: "Running" }), metadata: { ...withRV("6").metadata, resourceVersion: n === 1 ? "6" : undefined } }) });
    h.setStatus({ phase: "Running" });
    await until("the patch", () => h.calls.length === 2);
    expect(h.calls.map((x) => x.verb)).toEqual(["get", "patch"]);
    // Even while statuses flow: neither the watch's copy nor this answer (no version) is compared.
    h.setStatus({ phase: "Running", message: "m" });
    await until("the second patch", () => h.calls.length === 4);
    expect(h.calls.map((x) => x.verb)).toEqual(["get", "patch", "get", "patch"]);
    await h.stop();
  });

  test("after a failed patch the pod is read from the apiserver again (the patch may have been applied)", async () => {
    const watched = withRV("5", { phase: "Pending" });
    const h = harness({
      watched,
      patchAnswer: (_, n) => (n === 2 ? new ApiError("etcdserver: request timed out", { code: 500, reason: "InternalError" }) : withRV(String(5 + n), { phase: "Running" })),
    });
    h.setStatus({ phase: "Running" });
    await until("the first patch", () => h.calls.length === 2);
    h.setStatus({ phase: "Running", message: "fails" });
    await until("the failed patch", () => h.calls.length === 3);
    h.setStatus({ phase: "Running", message: "again" });
    await until("the retry", () => h.calls.length === 5);
    expect(h.calls.map((x) => x.verb)).toEqual(["get", "patch", "patch", "get", "patch"]);
    expect(h.log.lines.some((l) => l.msg === "Failed to update status for pod")).toBe(true);
    // Once a patch went through, the answer is trusted again: no GET.
    h.setStatus({ phase: "Running", message: "third" });
    await until("the fourth patch", () => h.calls.length === 6);
    expect(h.calls.map((x) => x.verb)).toEqual(["get", "patch", "patch", "get", "patch", "patch"]);
    await h.stop();
  });

  test("a pod deleted and recreated under the same name: the UID precondition fails, nothing is retried against it", async () => {
    const watched = withRV("5", { phase: "Pending" });
    const conflict = new ApiError("Precondition failed: UID in precondition: uid-1, UID in object meta: uid-2", { code: 409, reason: "Conflict" });
    let recreated = false;
    const h = harness({
      watched,
      patchAnswer: (_, n) => (n === 1 ? withRV("6", { phase: "Running" }) : conflict),
      getAnswer: () => (recreated ? { ...withRV("8"), metadata: { ...withRV("8").metadata, uid: "uid-2" } } : watched),
    });
    h.setStatus({ phase: "Running" });
    await until("the first patch", () => h.calls.length === 2);
    recreated = true;
    h.setStatus({ phase: "Running", message: "m" });
    await until("the patch", () => h.calls.length === 3);
    expect(h.calls.map((x) => x.verb)).toEqual(["get", "patch", "patch"]);
    await until("the log line", () => h.log.lines.some((l) => l.msg === "Pod was deleted and then recreated, skipping status update"));
    // The next change asks the apiserver, sees the other UID and patches nothing.
    h.setStatus({ phase: "Running", message: "again" });
    await until("the GET", () => h.calls.length === 4);
    await new Promise((r) => setTimeout(r, 20));
    expect(h.calls.map((x) => x.verb)).toEqual(["get", "patch", "patch", "get"]);
    await h.stop();
  });
});
