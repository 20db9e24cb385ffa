import { expect, test } from "bun:test";
import { RuntimeUnavailableError, waitForRuntime } from "../../../src/boot/connect-runtime.ts";
import { FakeClock } from "../../../src/lib/testing.ts";

function fakeCri(failures: number) {
  let calls = 0;
  return {
    calls: () => calls,
    runtime: {
      version: async () => {
        calls++;
        if (calls <= failures) throw new Error("connect ENOENT /run/x.sock");
        return { runtimeName: "fake", runtimeVersion: "1.0" };
      },
    },
  };
}

test("waits for the runtime to answer Version, retrying every 200 ms", async () => {
  const clock = new FakeClock();
  const cri = fakeCri(3);
  const waiting = waitForRuntime(cri as never, "unix:///run/x.sock", clock, new AbortController().signal, 30_000);
  await clock.advance(600);
  expect(await waiting).toEqual({ runtimeName: "fake", runtimeVersion: "1.0" });
  expect(cri.calls()).toBe(4);
});

test("gives up after the timeout with an error naming the endpoint and the last failure", async () => {
  const clock = new FakeClock();
  const cri = fakeCri(Infinity);
  const waiting = waitForRuntime(cri as never, "unix:///run/x.sock", clock, new AbortController().signal, 30_000).catch((e) => e);
  await clock.advance(30_000);
  const err = await waiting;
  expect(err).toBeInstanceOf(RuntimeUnavailableError);
  expect(err.message).toBe(
    "container runtime at unix:///run/x.sock did not answer a CRI Version call within 30s: connect ENOENT /run/x.sock",
  );
});

test("an aborted start-up stops waiting at once", async () => {
  const clock = new FakeClock();
  const ac = new AbortController();
  const waiting = waitForRuntime(fakeCri(Infinity) as never, "unix:///x", clock, ac.signal, 30_000).catch((e) => e);
  await clock.advance(1000);
  ac.abort(new Error("shutting down"));
  expect((await waiting).message).toBe("shutting down");
});

test("the first failed attempt is reported at once, and only once", async () => {
  const clock = new FakeClock();
  const heard: unknown[] = [];
  const waiting = waitForRuntime(fakeCri(5) as never, "unix:///x", clock, new AbortController().signal, 30_000, (err) => heard.push(err));
  await clock.advance(0);
  expect(heard).toHaveLength(1);
  expect((heard[0] as Error).message).toBe("connect ENOENT /run/x.sock");
  await clock.advance(1000);
  await waiting;
  expect(heard).toHaveLength(1);
});
