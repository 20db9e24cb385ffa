import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "prom-client";
import { parseArgs } from "../../../src/config/index.ts";
import type { CriClient } from "../../../src/cri/index.ts";
import type { WireBase } from "../../../src/kubelet/wire-base.ts";
import { wireKubeletApi } from "../../../src/kubelet/wire-kubelet-api.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";

const dir = mkdtempSync(join(tmpdir(), "bunlet-kubelet-api-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (...flags: string[]) => {
  const parsed = parseArgs(["--address=127.0.0.1", `--cert-dir=${dir}`, ...flags]);
  if (parsed.kind !== "run") throw new Error(`flags ${flags.join(" ")} did not parse to a run`);
  return parsed.config;
};

function base() {
  const log = createMemoryLogger();
  const wired: WireBase = {
    clock: new FakeClock(),
    log,
    metrics: createMetrics(new Registry()),
    random: () => 0.5,
    signal: new AbortController().signal,
    startupLatency: {} as WireBase["startupLatency"],
  };
  return { wired, log };
}

const inputs = { cri: {} as CriClient, hostIPs: ["127.0.0.1"], randomPort: true, routes: {}, pods: () => ({ apiVersion: "v1" as const, kind: "PodList" as const, metadata: {}, items: [] }) };

describe("the kubelet API's wiring", () => {
  test("--enable-server=false: not served", async () => {
    const { wired, log } = base();
    await using api = await wireKubeletApi(config("--enable-server=false"), wired, inputs);
    expect(api.port).toBe(0);
    expect(log.lines.map((l) => l.msg)).toEqual(["The kubelet API is off (enableServer: false)"]);
  });

  test("authorization mode Webhook without --kubeconfig: not served, and the log says how to serve it", async () => {
    const { wired, log } = base();
    await using api = await wireKubeletApi(config("--authorization-mode=Webhook"), wired, inputs);
    expect(api.port).toBe(0);
    expect(log.lines[0]?.msg).toStartWith("The kubelet API is not served: authorization mode Webhook needs --kubeconfig");
  });

  test("an unreadable --client-ca-file stops the start, naming the file", async () => {
    const { wired } = base();
    const missing = join(dir, "no-ca.crt");
    await expect(wireKubeletApi(config("--authorization-mode=AlwaysAllow", `--client-ca-file=${missing}`), wired, inputs)).rejects.toThrow(
      `cannot read the client CA file ${JSON.stringify(missing)} (--client-ca-file)`,
    );
  });

  test("anonymous with AlwaysAllow: served on a self-signed certificate, with the INSECURE warning", async () => {
    const { wired, log } = base();
    await using api = await wireKubeletApi(config("--authorization-mode=AlwaysAllow", "--anonymous-auth=true", "--authentication-token-webhook=true"), wired, inputs);
    expect(api.port).toBeGreaterThan(0);
    const msgs = log.lines.map((l) => `${l.level} ${l.msg}`);
    expect(msgs).toContain("info Bearer tokens are not accepted on the kubelet API: token webhook authentication needs --kubeconfig");
    expect(msgs.some((m) => m.startsWith("warn INSECURE: the kubelet API serves anyone who reaches it"))).toBe(true);
    const res = await fetch(`https://127.0.0.1:${api.port}/healthz`, { tls: { rejectUnauthorized: false } } as RequestInit);
    expect(res.status).toBeLessThan(500);
  });
});
