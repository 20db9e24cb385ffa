import { describe, expect, test } from "bun:test";
import { FakeClock } from "../../../src/lib/testing.ts";
import { syncLoopHealthCheck, type HealthCheck } from "../../../src/server/index.ts";
import { healthz, healthzOne, pingCheck } from "../../../src/server/healthz.ts";
import { syncLoopThresholdMs } from "../../../src/server/checks.ts";

const ok = (name: string): HealthCheck => ({ name, check: () => ({ ok: true }) });
const bad = (name: string, message?: string): HealthCheck => ({ name, check: () => ({ ok: false, message }) });
const q = (verbose = false, exclude: string[] = []) => ({ verbose, exclude });

describe("/healthz answers like the kubelet's healthz handler", () => {
  test("all checks pass: 200 and the word ok", () => {
    expect(healthz([ok("syncloop"), ok("pleg")], q())).toEqual({ status: 200, body: "ok", failed: [] });
  });

  test("?verbose lists every check, ping first, and says passed", () => {
    expect(healthz([ok("syncloop"), ok("pleg")], q(true)).body).toBe("[+]ping ok\n[+]syncloop ok\n[+]pleg ok\nhealthz check passed\n");
  });

  test("ping is listed once when the caller passes it too", () => {
    expect(healthz([pingCheck, ok("pleg")], q(true)).body).toBe("[+]ping ok\n[+]pleg ok\nhealthz check passed\n");
  });

  test("a failing check: 500, every check listed, the failing one with its reason", () => {
    const r = healthz([bad("syncloop", "sync loop took longer than expected"), ok("pleg"), bad("runtime", "container runtime is down")], q());
    expect(r.status).toBe(500);
    expect(r.body).toBe(
      "[+]ping ok\n[-]syncloop failed: sync loop took longer than expected\n[+]pleg ok\n[-]runtime failed: container runtime is down\nhealthz check failed\n",
    );
    expect(r.failed.map((f) => f.name)).toEqual(["syncloop", "runtime"]);
  });

  test("a check that throws has failed, with the error as its reason", () => {
    const thrower: HealthCheck = { name: "pleg", check: () => { throw new Error("relist never ran"); } };
    expect(healthz([thrower], q()).body).toContain("[-]pleg failed: relist never ran\n");
  });

  test("a failure without a message still says failed; a multi-line reason stays on one line", () => {
    expect(healthz([bad("pleg")], q()).body).toContain("[-]pleg failed: check failed\n");
    expect(healthz([bad("pleg", "a\n  b")], q()).body).toContain("[-]pleg failed: a; b\n");
  });

  test("?exclude skips a check; an unknown name is reported, as upstream", () => {
    const r = healthz([bad("syncloop", "stalled")], q(true, ["syncloop", "nope"]));
    expect(r.status).toBe(200);
    expect(r.body).toBe('[+]ping ok\n[+]syncloop excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nhealthz check passed\n');
  });

  test("?verbose adds the detail lines; plain ok does not", () => {
    const detail = () => ({ plegMode: "evented", relistPeriodMs: 1000 });
    expect(healthz([ok("pleg")], q(true), detail).body).toBe("[+]ping ok\n[+]pleg ok\n[i]plegMode: evented\n[i]relistPeriodMs: 1000\nhealthz check passed\n");
    expect(healthz([ok("pleg")], q(false), detail).body).toBe("ok");
  });
});

describe("/healthz/<name> answers for one check", () => {
  const checks = [ok("pleg"), bad("runtime", "container runtime is down")];
  const cases: [string, number, string][] = [
    ["ping", 200, "ok"],
    ["pleg", 200, "ok"],
    ["runtime", 500, "internal server error: container runtime is down\n"],
    ["nope", 404, "404 page not found\n"],
  ];
  for (const [name, status, body] of cases) {
    test(`${name} → ${status}`, () => expect(healthzOne(checks, name)).toMatchObject({ status, body }));
  }
});

describe("the syncloop check fails when no iteration started for max(2 × syncFrequency, 5m)", () => {
  const thresholds: [number, number][] = [
    [60_000, 300_000],
    [10_000, 300_000],
    [150_000, 300_000],
    [200_000, 400_000],
  ];
  for (const [sync, threshold] of thresholds) {
    test(`syncFrequency ${sync / 1000}s → threshold ${threshold / 1000}s`, () => expect(syncLoopThresholdMs(sync)).toBe(threshold));
  }

  test("healthy before the first iteration, up to the threshold, and unhealthy after it", async () => {
    const clock = new FakeClock();
    let entered: number | undefined;
    const check = syncLoopHealthCheck({ clock, latestLoopEntryTime: () => entered, syncFrequencyMs: 60_000 });
    expect(check.name).toBe("syncloop");
    expect(check.check().ok).toBe(true);
    entered = clock.now();
    await clock.advance(300_000);
    expect(check.check().ok).toBe(true);
    await clock.advance(1_000);
    expect(check.check()).toEqual({ ok: false, message: "sync loop took longer than expected: last iteration started 301s ago (threshold 300s)" });
    entered = clock.now();
    expect(check.check().ok).toBe(true);
  });
});
