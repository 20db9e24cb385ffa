import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/apiclient/index.ts";
import { createHeartbeat, heartbeatTimeoutMs, type HeartbeatState } from "../../../src/node/heartbeat.ts";

const unanswered = new ApiError("PATCH /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1: no answer from https://a:6443 within 10 s", { code: 0, reason: "ClientTimeout" });
const refused = new ApiError("PATCH ...: 403 Forbidden", { code: 403, reason: "Forbidden" });
const conflict = new ApiError("PATCH ...: 409 Conflict", { code: 409, reason: "Conflict" });

type Step = ["renewed" | "reported", ApiError | undefined];

describe("the heartbeat state (answering → silent → reporting → answering)", () => {
  const table: { name: string; steps: Step[]; states: HeartbeatState[]; reports: boolean[] }[] = [
    { name: "renewals that succeed change nothing", steps: [["renewed", undefined], ["renewed", undefined]], states: ["answering", "answering"], reports: [false, false] },
    { name: "an unanswered renewal makes it silent", steps: [["renewed", unanswered]], states: ["silent"], reports: [false] },
    { name: "a refused renewal says the apiserver is there", steps: [["renewed", refused], ["renewed", conflict]], states: ["answering", "answering"], reports: [false, false] },
    {
      name: "the first renewal after silence asks for the Node's status; its report opens the way",
      steps: [["renewed", unanswered], ["renewed", unanswered], ["renewed", undefined], ["renewed", undefined], ["reported", undefined]],
      states: ["silent", "silent", "reporting", "reporting", "answering"],
      reports: [false, false, true, false, false],
    },
    {
      name: "an unanswered report is silence again; the next renewal asks again",
      steps: [["renewed", unanswered], ["renewed", undefined], ["reported", unanswered], ["renewed", undefined], ["reported", refused]],
      states: ["silent", "reporting", "silent", "reporting", "answering"],
      reports: [false, true, false, true, false],
    },
    {
      name: "a renewal unanswered while reporting wins over the report that comes back",
      steps: [["renewed", unanswered], ["renewed", undefined], ["renewed", unanswered], ["reported", undefined]],
      states: ["silent", "reporting", "silent", "silent"],
      reports: [false, true, false, false],
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      const h = createHeartbeat();
      const states: HeartbeatState[] = [];
      const reports: boolean[] = [];
      for (const [what, err] of row.steps) {
        if (what === "renewed") reports.push(h.renewed(err));
        else {
          h.reported(err);
          reports.push(false);
        }
        states.push(h.state());
      }
      expect(states).toEqual(row.states);
      expect(reports).toEqual(row.reports);
    });
  }

  test("pod status updates wait while it is not answering, and go once the Node's status is reported", async () => {
    const changes: string[] = [];
    const h = createHeartbeat((from, to) => changes.push(`${from}→${to}`));
    await h.answering(new AbortController().signal);
    h.renewed(unanswered);
    let released = false;
    const waiting = h.answering(new AbortController().signal).then(() => (released = true));
    h.renewed(undefined);
    await Promise.resolve();
    expect(released).toBe(false);
    h.reported(undefined);
    await waiting;
    expect(released).toBe(true);
    expect(changes).toEqual(["answering→silent", "silent→reporting", "reporting→answering"]);
  });

  test("a waiter stops waiting when its signal aborts (shutdown)", async () => {
    const h = createHeartbeat();
    h.renewed(unanswered);
    const stop = new AbortController();
    const waiting = h.answering(stop.signal);
    stop.abort();
    await waiting;
    expect(h.state()).toBe("silent");
  });
});

test("the heartbeat client's deadline is the node status update frequency, capped by the lease duration", () => {
  expect(heartbeatTimeoutMs(10_000, 40)).toBe(10_000);
  expect(heartbeatTimeoutMs(60_000, 40)).toBe(40_000);
});
