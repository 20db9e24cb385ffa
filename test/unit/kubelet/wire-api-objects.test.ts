import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { ApiError, type ApiClient, type WatchEvent } from "../../../src/apiclient/index.ts";
import { parseArgs } from "../../../src/config/index.ts";
import type { WireBase } from "../../../src/kubelet/wire-base.ts";
import { wireApiObjects } from "../../../src/kubelet/wire-api-objects.ts";
import { Channel } from "../../../src/lib/index.ts";
import { createMemoryLogger, FakeClock, flushMicrotasks } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";

const config = (...flags: string[]) => {
  const parsed = parseArgs(flags);
  if (parsed.kind !== "run") throw new Error(`flags ${flags.join(" ")} did not parse to a run`);
  return parsed.config;
};

function base(signal: AbortSignal): WireBase {
  return {
    clock: new FakeClock(),
    log: createMemoryLogger(),
    metrics: createMetrics(new Registry()),
    random: () => 0.5,
    signal,
    startupLatency: {} as WireBase["startupLatency"],
  };
}

/** An apiserver with one ConfigMap, one Secret, one Service, and a TokenRequest endpoint. */
function fakeApiserver() {
  const requests: string[] = [];
  const objects: Record<string, unknown> = {
    "/api/v1/namespaces/ns/configmaps/app": { metadata: { name: "app", namespace: "ns" }, data: { k: "v" } },
    "/api/v1/namespaces/ns/secrets/creds": { metadata: { name: "creds", namespace: "ns" }, data: { p: "cA==" } },
  };
  const service = { metadata: { name: "web", namespace: "ns", resourceVersion: "1" }, spec: { clusterIP: "10.96.0.10" } };
  const client = {
    server: "https://apiserver:6443",
    get: async <T,>(path: string) => {
      requests.push(`GET ${path}`);
      if (!(path in objects)) throw new ApiError(`GET ${path}: 404 Not Found`, { code: 404, reason: "NotFound" });
      return objects[path] as T;
    },
    list: async <T,>(path: string) => {
      requests.push(`LIST ${path}`);
      return { items: [service] as T[], metadata: { resourceVersion: "1" } };
    },
    watch: <T,>(_path: string, opts?: { signal?: AbortSignal }) => {
      const channel = new Channel<WatchEvent<T>>(1);
      opts?.signal?.addEventListener("abort", () => channel.close(), { once: true });
      return channel as AsyncIterable<WatchEvent<T>>;
    },
    create: async <T,>(path: string, body: T) => {
      requests.push(`POST ${path} ${JSON.stringify((body as { spec: unknown }).spec)}`);
      return { status: { token: "jwt", expirationTimestamp: "2030-01-01T00:00:00Z" } } as T;
    },
  } as unknown as ApiClient;
  return { client, requests };
}

const tokenSpec = { audiences: ["api"], expirationSeconds: 3600, boundObjectRef: { apiVersion: "v1" as const, kind: "Pod" as const, name: "p", uid: "u1" } };

describe("the API objects pods read", () => {
  test("standalone (no --kubeconfig): no objects, and binding is a no-op", async () => {
    await using parts = wireApiObjects(config(), base(new AbortController().signal));
    expect(parts.env).toBeUndefined();
    expect(parts.volumes).toBeUndefined();
    parts.bind(fakeApiserver().client);
  });

  test("before the node area binds a client, a read says so", async () => {
    await using parts = wireApiObjects(config("--kubeconfig=/etc/k.conf"), base(new AbortController().signal));
    await expect(parts.env!.configMap("ns", "app")).rejects.toThrow("no API client yet: the node area has not connected");
  });

  test("ConfigMaps and Secrets by GET; a missing one is ObjectNotFoundError for env, undefined for volumes", async () => {
    const api = fakeApiserver();
    await using parts = wireApiObjects(config("--kubeconfig=/etc/k.conf"), base(new AbortController().signal));
    parts.bind(api.client);
    expect(await parts.env!.configMap("ns", "app")).toMatchObject({ data: { k: "v" } });
    expect(await parts.env!.secret("ns", "creds")).toMatchObject({ data: { p: "cA==" } });
    await expect(parts.env!.configMap("ns", "gone")).rejects.toThrow('configmap "gone" not found');
    await expect(parts.env!.secret("ns", "gone")).rejects.toThrow('secret "gone" not found');
    expect(await parts.volumes!.configMap("ns", "gone")).toBeUndefined();
    expect(api.requests).toContain("GET /api/v1/namespaces/ns/secrets/creds");
  });

  test("service-link env vars read the Services once the reflector listed them", async () => {
    const api = fakeApiserver();
    await using parts = wireApiObjects(config("--kubeconfig=/etc/k.conf"), base(new AbortController().signal));
    expect(await parts.env!.services()).toBeUndefined();
    parts.bind(api.client);
    for (let i = 0; i < 10 && !api.requests.includes("LIST /api/v1/services"); i++) await flushMicrotasks();
    await flushMicrotasks();
    expect(await parts.env!.services()).toMatchObject([{ metadata: { name: "web" } }]);
  });

  test("service account tokens by TokenRequest", async () => {
    const api = fakeApiserver();
    await using parts = wireApiObjects(config("--kubeconfig=/etc/k.conf"), base(new AbortController().signal));
    parts.bind(api.client);
    expect(await parts.volumes!.tokens.getServiceAccountToken("ns", "default", tokenSpec)).toEqual({ token: "jwt", expiresAt: Date.parse("2030-01-01T00:00:00Z") });
    expect(api.requests).toContain(`POST /api/v1/namespaces/ns/serviceaccounts/default/token ${JSON.stringify(tokenSpec)}`);
  });
});
