// terminateChild on a child that has already exited: its pid may belong to another process by
// now (pids are reused), so nothing may be signalled.
import { afterEach, expect, test } from "bun:test";
import { terminateChild } from "../../../src/containerd/terminate.ts";
import { FakeClock, createMemoryLogger } from "../../../src/lib/testing.ts";

const others: Bun.Subprocess[] = [];
afterEach(() => {
  for (const p of others.splice(0)) p.kill("SIGKILL");
});

test("a child that already exited is not signalled: its pid may be another process's now", async () => {
  // A live process standing in for whoever got the exited child's pid.
  const other = Bun.spawn(["sleep", "30"], { stdout: "ignore", stderr: "ignore" });
  others.push(other);
  const gone = { pid: other.pid, exited: Promise.resolve({ code: 1, signal: null }) };
  await terminateChild(gone, { clock: new FakeClock(), timeoutMs: 1000, log: createMemoryLogger() });
  await Bun.sleep(50);
  expect(other.exitCode).toBeNull();
  expect(other.signalCode).toBeNull();
});

test("a running child gets SIGTERM and is waited for", async () => {
  const child = Bun.spawn(["sleep", "30"], { stdout: "ignore", stderr: "ignore" });
  others.push(child);
  const running = { pid: child.pid, exited: child.exited.then(() => ({ code: child.exitCode, signal: child.signalCode as string | null })) };
  await terminateChild(running, { clock: new FakeClock(), timeoutMs: 1000, log: createMemoryLogger() });
  expect(child.signalCode).toBe("SIGTERM");
});
