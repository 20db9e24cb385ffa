import { describe, expect, test } from "bun:test";
import { errorFromResponse, errorFromStatus } from "../../../src/apiclient/errors.ts";
import { isAlreadyExists, isConflict, isNotFound, isResourceExpired, isTooManyRequests } from "../../../src/apiclient/errors.ts";
import { ReflectorBackoff } from "../../../src/apiclient/reflector.ts";
import { FakeClock } from "../../../src/lib/testing.ts";

describe("ApiError", () => {
  test("the Status in the body gives the reason; the message names the request", () => {
    const body = JSON.stringify({ kind: "Status", status: "Failure", code: 409, reason: "AlreadyExists", message: 'nodes "n1" already exists' });
    const err = errorFromResponse("POST /api/v1/nodes", 409, body);
    expect(err.code).toBe(409);
    expect(err.reason).toBe("AlreadyExists");
    expect(isAlreadyExists(err)).toBe(true);
    expect(isConflict(err)).toBe(false);
    expect(err.message).toBe('POST /api/v1/nodes: 409 AlreadyExists: nodes "n1" already exists');
  });

  test("a body that is not a Status gets the code's generic reason (apimachinery's NewGenericServerResponse)", () => {
    expect(errorFromResponse("GET /x", 404, "<html>").reason).toBe("NotFound");
    expect(errorFromResponse("GET /x", 503, "").reason).toBe("ServiceUnavailable");
    expect(errorFromResponse("GET /x", 502, "bad gateway").reason).toBe("InternalError");
    expect(isNotFound(errorFromResponse("GET /x", 404, ""))).toBe(true);
  });

  test("Retry-After comes from the Status details or the header", () => {
    const body = JSON.stringify({ kind: "Status", code: 429, reason: "TooManyRequests", details: { retryAfterSeconds: 3 } });
    expect(errorFromResponse("GET /x", 429, body).retryAfterSeconds).toBe(3);
    const bare = errorFromResponse("GET /x", 429, "", "7");
    expect(bare.retryAfterSeconds).toBe(7);
    expect(isTooManyRequests(bare)).toBe(true);
  });

  test("a watch ERROR event with 410 Expired or Gone means: relist", () => {
    expect(isResourceExpired(errorFromStatus("watch /api/v1/pods", { code: 410, reason: "Expired", message: "too old resource version" }))).toBe(true);
    expect(isResourceExpired(errorFromStatus("watch /api/v1/pods", { code: 410 }))).toBe(true);
    expect(isResourceExpired(errorFromStatus("watch /api/v1/pods", { code: 500, reason: "InternalError" }))).toBe(false);
  });
});

describe("the reflector's backoff (800 ms doubling to 30 s, jitter up to 100 %, reset after 2 quiet minutes)", () => {
  test("grows, caps, and starts over after two minutes without a backoff", async () => {
    const clock = new FakeClock();
    const b = new ReflectorBackoff(clock, () => 0);
    expect([b.next(), b.next(), b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000]);
    await clock.advance(2 * 60_000 + 1);
    expect(b.next()).toBe(800);
  });

  test("jitter adds up to the delay again", () => {
    const b = new ReflectorBackoff(new FakeClock(), () => 0.5);
    expect(b.next()).toBe(1200);
  });
});
