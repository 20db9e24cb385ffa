import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/apiclient/index.ts";
import { createObjectReaders } from "../../../src/apiobjects/readers.ts";
import { throughCheckpoint } from "../../../src/apiobjects/through-checkpoint.ts";
import { createApiTokenManager } from "../../../src/apiobjects/tokens.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";

describe("throughCheckpoint (--offline-start)", () => {
  const unreachable = () => Promise.reject(new Error("connect ECONNREFUSED"));
  type Case = [name: string, listed: boolean | undefined, kept: string | undefined, read: () => Promise<string | undefined>, want: string | undefined | Error, recorded: (string | undefined)[]];
  const cases: Case[] = [
    ["no checkpoint: the apiserver answers, nothing is recorded", undefined, undefined, async () => "live", "live", []],
    ["before the first list, a kept copy answers without asking the apiserver", false, "kept", async () => "live", "kept", []],
    ["before the first list, nothing kept: the apiserver answers and is recorded", false, undefined, async () => "live", "live", ["live"]],
    ["after the first list the apiserver answers and is recorded", true, "kept", async () => "live", "live", ["live"]],
    ["a NotFound (undefined) is recorded as a deletion", true, "kept", async () => undefined, undefined, [undefined]],
    ["an unreachable apiserver: the kept copy", true, "kept", unreachable, "kept", []],
    ["an unreachable apiserver and nothing kept: the error", true, undefined, unreachable, new Error("connect ECONNREFUSED"), []],
  ];
  for (const [name, listed, kept, read, want, recorded] of cases) {
    test(name, async () => {
      const records: (string | undefined)[] = [];
      const checkpoint = listed === undefined ? undefined : { listed: () => listed };
      const got = throughCheckpoint(checkpoint, { read, kept: () => kept, record: (o) => records.push(o) }, { configmap: "ns/a" }, createMemoryLogger());
      if (want instanceof Error) await expect(got).rejects.toThrow(want.message);
      else expect(await got).toBe(want);
      expect(records).toEqual(recorded);
    });
  }
});

describe("the readers and the token requests on the API client", () => {
  const notFound = new ApiError('configmaps "a" not found', { code: 404, reason: "NotFound" });

  test("a ConfigMap or Secret is one GET of its path; NotFound is undefined, another error is thrown", async () => {
    const paths: string[] = [];
    const answers: Record<string, () => unknown> = {
      "/api/v1/namespaces/ns/configmaps/a": () => ({ metadata: { name: "a" }, data: { k: "v" } }),
      "/api/v1/namespaces/ns/configmaps/gone": () => {
        throw notFound;
      },
      "/api/v1/namespaces/ns/secrets/s": () => {
        throw new ApiError("forbidden", { code: 403, reason: "Forbidden" });
      },
    };
    const client = { get: async <T>(path: string) => (paths.push(path), answers[path]!() as T) };
    const readers = createObjectReaders(client, undefined, createMemoryLogger());
    expect(await readers.configMap("ns", "a")).toEqual({ metadata: { name: "a" }, data: { k: "v" } });
    expect(await readers.configMap("ns", "gone")).toBeUndefined();
    await expect(readers.secret("ns", "s")).rejects.toThrow("forbidden");
    expect(paths).toEqual(["/api/v1/namespaces/ns/configmaps/a", "/api/v1/namespaces/ns/configmaps/gone", "/api/v1/namespaces/ns/secrets/s"]);
  });

  test("a token is a TokenRequest on the service account's token subresource, with the spec given", async () => {
    const requests: { path: string; body: unknown }[] = [];
    const client = {
      create: async <T>(path: string, body: unknown) => {
        requests.push({ path, body });
        return { status: { token: "t0k3n", expirationTimestamp: "2026-01-01T01:00:00Z" } } as T;
      },
    };
    const tokens = createApiTokenManager(client, undefined, { clock: new FakeClock(), random: () => 0.5, log: createMemoryLogger() });
    const spec = { audiences: ["api"], expirationSeconds: 3600, boundObjectRef: { apiVersion: "v1" as const, kind: "Pod" as const, name: "p", uid: "u1" } };
    expect(await tokens.getServiceAccountToken("ns", "default", spec)).toEqual({ token: "t0k3n", expiresAt: Date.parse("2026-01-01T01:00:00Z") });
    expect(requests).toEqual([{ path: "/api/v1/namespaces/ns/serviceaccounts/default/token", body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec } }]);
  });
});
