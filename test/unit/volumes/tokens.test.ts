// The token manager's refresh timing with a FakeClock: a token is reused until 80 % of its life
// (or 24 h) less the jitter, refreshed after, kept when a refresh fails while it is valid.
import { describe, expect, test } from "bun:test";
import { silentLogger } from "../../../src/lib/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { createTokenManager, requiresRefresh, type TokenRequestSpec } from "../../../src/volumes/tokens.ts";

const spec = (expirationSeconds: number): TokenRequestSpec => ({
  audiences: [],
  expirationSeconds,
  boundObjectRef: { apiVersion: "v1", kind: "Pod", name: "p", uid: "u1" },
});
const H = 3600_000;

describe("requiresRefresh", () => {
  const t0 = Date.UTC(2026, 0, 1);
  // [expirationSeconds, ms after issue, jitter s, refresh?]
  const table: [number, number, number, boolean][] = [
    [3600, 0, 0, false],
    [3600, 0.8 * H, 0, false], // exactly at 80 %: not yet
    [3600, 0.8 * H + 1, 0, true],
    [3600, 0.8 * H - 9_000, 10, true], // the jitter brings it forward
    [3600, 0.8 * H - 11_000, 10, false],
    [48 * 3600, 24 * H, 0, false], // 24 h: not yet
    [48 * 3600, 24 * H + 1, 0, true], // a 48 h token is refreshed after 24 h, not at 38.4 h
    [600, 480_001, 0, true],
  ];
  test.each(table)("a %is token %i ms after issue (jitter %is): %p", (exp, after, jitter, want) => {
    expect(requiresRefresh(t0 + after, spec(exp), { token: "t", expiresAt: t0 + exp * 1000 }, jitter)).toBe(want);
  });
});

describe("the token manager", () => {
  function setup() {
    const clock = new FakeClock();
    let n = 0;
    let fail = false;
    const manager = createTokenManager({
      clock,
      random: () => 0,
      log: silentLogger,
      request: async (_ns, _sa, s) => {
        if (fail) throw new Error("apiserver down");
        n++;
        return { token: `token-${n}`, expiresAt: clock.now() + s.expirationSeconds * 1000 };
      },
    });
    return { clock, manager, requests: () => n, setFail: (f: boolean) => (fail = f) };
  }

  test("reuses a token until 80 % of its life, then requests a new one", async () => {
    const { clock, manager, requests } = setup();
    expect((await manager.getServiceAccountToken("ns", "default", spec(3600))).token).toBe("token-1");
    await clock.advance(0.8 * H);
    expect((await manager.getServiceAccountToken("ns", "default", spec(3600))).token).toBe("token-1");
    await clock.advance(1000);
    expect((await manager.getServiceAccountToken("ns", "default", spec(3600))).token).toBe("token-2");
    expect(requests()).toBe(2);
  });

  test("another audience or expiration is another token", async () => {
    const { manager } = setup();
    await manager.getServiceAccountToken("ns", "default", spec(3600));
    expect((await manager.getServiceAccountToken("ns", "default", { ...spec(3600), audiences: ["vault"] })).token).toBe("token-2");
    expect((await manager.getServiceAccountToken("ns", "default", spec(7200))).token).toBe("token-3");
  });

  test("a failed refresh keeps the valid cached token; an expired one fails", async () => {
    const { clock, manager, setFail } = setup();
    await manager.getServiceAccountToken("ns", "default", spec(3600));
    await clock.advance(0.9 * H);
    setFail(true);
    expect((await manager.getServiceAccountToken("ns", "default", spec(3600))).token).toBe("token-1");
    await clock.advance(0.2 * H);
    await expect(manager.getServiceAccountToken("ns", "default", spec(3600))).rejects.toThrow("apiserver down");
  });

  test("cleanup drops expired tokens; deleting a pod's tokens forgets them", async () => {
    const { clock, manager, requests } = setup();
    await manager.getServiceAccountToken("ns", "default", spec(3600));
    manager.deleteServiceAccountToken("u1");
    await manager.getServiceAccountToken("ns", "default", spec(3600));
    expect(requests()).toBe(2);
    await clock.advance(2 * H);
    manager.cleanup();
    await manager.getServiceAccountToken("ns", "default", spec(3600));
    expect(requests()).toBe(3);
  });
});
