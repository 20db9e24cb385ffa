import { describe, expect, test } from "bun:test";
import { silentLogger } from "../../../src/lib/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { createAuthenticator, type ReviewClient } from "../../../src/server/authn.ts";
import { createWebhookAuthorizer } from "../../../src/server/authz.ts";
import { requestAttributes } from "../../../src/server/request-attributes.ts";

/** An apiserver's review endpoint as a table: records each review and answers from `answer`. */
function reviews(answer: (body: any) => any) {
  const calls: any[] = [];
  const client: ReviewClient = {
    create: async <T>(path: string, body: T) => {
      calls.push({ path, body });
      return { ...(body as object), status: answer(body) } as T;
    },
  };
  return { client, calls };
}

const signal = new AbortController().signal;

describe("authentication: x509, then TokenReview, then anonymous only when enabled", () => {
  const tokens = reviews((b) => (b.spec.token === "good" ? { authenticated: true, user: { username: "alice", groups: ["devs", "system:authenticated"] } } : { authenticated: false }));
  const clock = new FakeClock(0);
  const authn = createAuthenticator({ x509: true, webhook: { client: tokens.client, cacheTtlMs: 120_000 }, anonymous: false, clock, log: silentLogger });

  test("a verified certificate: CN and O, plus system:authenticated", async () => {
    expect(await authn({ cert: { verified: true, commonName: "kube-apiserver", organizations: ["o1"] } }, signal)).toEqual({ name: "kube-apiserver", groups: ["o1", "system:authenticated"] });
  });
  test("an unverified certificate is no identity", async () => {
    expect(await authn({ cert: { verified: false, commonName: "admin", organizations: ["system:masters"] } }, signal)).toBeUndefined();
  });
  test("a token the TokenReview accepts; answers are cached for cacheTTL", async () => {
    const before = tokens.calls.length;
    expect(await authn({ authorization: "Bearer good" }, signal)).toMatchObject({ name: "alice", groups: ["devs", "system:authenticated"] });
    await authn({ authorization: "Bearer good" }, signal);
    expect(tokens.calls.length).toBe(before + 1);
    expect(tokens.calls.at(-1)).toEqual({ path: "/apis/authentication.k8s.io/v1/tokenreviews", body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "good" } } });
    await clock.advance(120_001);
    await authn({ authorization: "Bearer good" }, signal);
    expect(tokens.calls.length).toBe(before + 2);
  });
  test("a rejected token, and no credentials, are not authenticated", async () => {
    expect(await authn({ authorization: "Bearer bad" }, signal)).toBeUndefined();
    expect(await authn({}, signal)).toBeUndefined();
  });
  test("anonymous when enabled", async () => {
    const anon = createAuthenticator({ x509: false, anonymous: true, clock, log: silentLogger });
    expect(await anon({}, signal)).toEqual({ name: "system:anonymous", groups: ["system:unauthenticated"] });
  });
  test("a TokenReview that fails is not authenticated", async () => {
    const failing: ReviewClient = { create: async () => Promise.reject(new Error("connection refused")) };
    const a = createAuthenticator({ x509: false, webhook: { client: failing, cacheTtlMs: 1000 }, anonymous: true, clock, log: silentLogger });
    expect(await a({ authorization: "Bearer x" }, signal)).toBeUndefined();
  });
});

describe("anonymous applies only when no credentials were presented (the kubelet's union authenticator)", () => {
  const tokens = reviews((b) => (b.spec.token === "good" ? { authenticated: true, user: { username: "alice" } } : { authenticated: false }));
  const clock = new FakeClock(0);
  const authn = createAuthenticator({ x509: true, webhook: { client: tokens.client, cacheTtlMs: 1000 }, anonymous: true, clock, log: silentLogger });

  test("a certificate that does not verify (a foreign CA) is 401, not system:anonymous", async () => {
    expect(await authn({ cert: { verified: false, commonName: "admin", organizations: ["system:masters"] } }, signal)).toBeUndefined();
  });
  test("a token the TokenReview rejects is 401, not system:anonymous", async () => {
    expect(await authn({ authorization: "Bearer bad" }, signal)).toBeUndefined();
  });
  test("no credentials at all is system:anonymous", async () => {
    expect(await authn({}, signal)).toEqual({ name: "system:anonymous", groups: ["system:unauthenticated"] });
  });
  test("a bearer token when token authentication is off is not read: anonymous", async () => {
    const noWebhook = createAuthenticator({ x509: true, anonymous: true, clock, log: silentLogger });
    expect(await noWebhook({ authorization: "Bearer whatever" }, signal)).toEqual({ name: "system:anonymous", groups: ["system:unauthenticated"] });
  });
});

describe("TokenReviews are shared while in flight, and cached", () => {
  test("a burst of 50 requests with one token makes one TokenReview; another token makes its own", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const calls: string[] = [];
    const client: ReviewClient = {
      create: async <T>(_path: string, body: T) => {
        const token = (body as { spec: { token: string } }).spec.token;
        calls.push(token);
        await gate;
        return { ...(body as object), status: { authenticated: true, user: { username: `u-${token}` } } } as T;
      },
    };
    const authn = createAuthenticator({ x509: false, webhook: { client, cacheTtlMs: 60_000 }, anonymous: false, clock: new FakeClock(0), log: silentLogger });
    const burst = Array.from({ length: 50 }, () => authn({ authorization: "Bearer t1" }, signal));
    const other = authn({ authorization: "Bearer t2" }, signal);
    await Bun.sleep(0);
    expect(calls).toEqual(["t1", "t2"]);
    release();
    for (const u of await Promise.all(burst)) expect(u?.name).toBe("u-t1");
    expect((await other)?.name).toBe("u-t2");
    // Answered from the cache now.
    await authn({ authorization: "Bearer t1" }, signal);
    expect(calls).toEqual(["t1", "t2"]);
  });

  test("a failed review is shared by its waiters and not cached", async () => {
    let n = 0;
    const client: ReviewClient = { create: async () => Promise.reject(new Error(`apiserver down ${++n}`)) };
    const authn = createAuthenticator({ x509: false, webhook: { client, cacheTtlMs: 60_000 }, anonymous: true, clock: new FakeClock(0), log: silentLogger });
    const results = await Promise.all([authn({ authorization: "Bearer t" }, signal), authn({ authorization: "Bearer t" }, signal)]);
    expect(results).toEqual([undefined, undefined]);
    expect(n).toBe(1);
    await authn({ authorization: "Bearer t" }, signal);
    expect(n).toBe(2);
  });
});

describe("authorization: a SubjectAccessReview with the kubelet's attributes, cached per answer", () => {
  const sar = reviews((b) => ({ allowed: b.spec.user === "admin" && b.spec.resourceAttributes.subresource === "proxy" }));
  const clock = new FakeClock(0);
  const authz = createWebhookAuthorizer({ client: sar.client, authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000, clock });
  const [logs] = requestAttributes("GET", "/containerLogs/ns/p/c", "node-1");

  test("the review names the user and the node's subresource", async () => {
    expect(await authz({ name: "admin", groups: ["g"] }, logs, signal)).toBe(true);
    expect(sar.calls[0]).toEqual({
      path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      body: {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { user: "admin", groups: ["g"], resourceAttributes: { namespace: "", verb: "get", group: "", version: "v1", resource: "nodes", subresource: "proxy", name: "node-1" } },
      },
    });
  });
  test("a denial is cached for cacheUnauthorizedTTL, an allowance for cacheAuthorizedTTL", async () => {
    const n = sar.calls.length;
    expect(await authz({ name: "bob", groups: [] }, logs, signal)).toBe(false);
    expect(await authz({ name: "bob", groups: [] }, logs, signal)).toBe(false);
    expect(sar.calls.length).toBe(n + 1);
    await clock.advance(30_001);
    await authz({ name: "bob", groups: [] }, logs, signal);
    await authz({ name: "admin", groups: ["g"] }, logs, signal);
    expect(sar.calls.length).toBe(n + 2);
  });
});
