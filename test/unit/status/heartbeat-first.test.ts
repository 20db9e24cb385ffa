/**
 * The pod status sync waits for the node's heartbeats after an outage, also between its GET of
 * the pod and its patch: a GET sent before the outage was known and answered after it must not
 * carry a pod status to the apiserver ahead of the Lease and the Node's status. The apiserver is
 * a recording stand-in client (no server): what matters is which calls are made, and when.
 */
import { expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createStatusManager, createStatusSync } from "../../../src/status/index.ts";
import { c, podWith, running } from "./states.ts";

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 200) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

test("a pod status answered by a GET during an outage is patched only once the heartbeats are through", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const log = createMemoryLogger();
  const statusManager = createStatusManager({ clock, log });
  const pod = podWith({ containers: [c("app")] });
  const calls: string[] = [];
  const answer = deferred<Pod>();
  let answering = true;
  let heartbeatBack = deferred<void>();
  const client = {
    get: async <T>(path: string) => {
      calls.push(`get ${path}`);
      return (await answer.promise) as T;
    },
    patch: async <T>(path: string) => {
      calls.push(`patch ${path}`);
      return { ...pod, status: {} } as T;
    },
    delete: async () => {
      throw new Error("no delete expected");
    },
  };
  const sync = createStatusSync({
    client,
    statusManager,
    podOf: (uid) => (uid === "uid-1" ? pod : undefined),
    mirrorPodOf: () => undefined,
    answering: (signal) => (answering || signal.aborted ? Promise.resolve() : heartbeatBack.promise),
    clock,
    log,
  });
  const stop = new AbortController();
  const running_ = sync.run(stop.signal);

  // The heartbeats are answered: the status change goes, and its GET is sent.
  statusManager.setPodStatus(pod, { phase: "Running", containerStatuses: [running("app")] });
  await until("the GET of the pod", () => calls.length === 1);
  // The outage is found while the GET is out; then the GET is answered.
  answering = false;
  heartbeatBack = deferred<void>();
  answer.resolve({ ...pod, status: { phase: "Pending" } });
  await new Promise((r) => setTimeout(r, 20));
  expect(calls).toEqual(["get /api/v1/namespaces/ns/pods/p"]);
  // The Lease and the Node's status are through: the pod status follows.
  answering = true;
  heartbeatBack.resolve();
  await until("the patch", () => calls.length === 2);
  expect(calls).toEqual(["get /api/v1/namespaces/ns/pods/p", "patch /api/v1/namespaces/ns/pods/p/status"]);
  stop.abort();
  await running_;
});
