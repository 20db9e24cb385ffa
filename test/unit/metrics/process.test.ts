import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import pkg from "../../../package.json";
import { readFileSync } from "node:fs";
import { createMetrics } from "../../../src/metrics/index.ts";
import { ipExtOctets } from "../../../src/metrics/process.ts";

async function scrape(): Promise<Map<string, number>> {
  const registry = new Registry();
  createMetrics(registry);
  const samples = new Map<string, number>();
  for (const line of (await registry.metrics()).split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

describe("the metrics every Kubernetes component exposes", () => {
  test("process metrics of client_golang's process collector, from /proc", async () => {
    const s = await scrape();
    expect(s.get("process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(s.get("process_resident_memory_bytes")).toBeGreaterThan(1 << 20);
    expect(s.get("process_virtual_memory_bytes")).toBeGreaterThan(s.get("process_resident_memory_bytes")!);
    expect(s.get("process_open_fds")).toBeGreaterThan(2);
    expect(s.get("process_max_fds")).toBeGreaterThanOrEqual(s.get("process_open_fds")!);
    // This test process started between boot and now (the kernel counts in 10 ms ticks).
    const started = s.get("process_start_time_seconds")!;
    expect(started).toBeLessThanOrEqual(Date.now() / 1000 + 0.01);
    // /proc/stat's btime is in whole seconds (so the figure can be up to 1 s early, as client_golang's),
    // and process.uptime() counts from after the exec: 2 s of slack.
    expect(started).toBeGreaterThan(Date.now() / 1000 - process.uptime() - 2);
  });

  test("kubernetes_build_info carries bunlet's version", async () => {
    const [major, minor] = pkg.version.split(".");
    const platform = `linux/${process.arch === "x64" ? "amd64" : process.arch}`;
    const labels = `major="${major}",minor="${minor}",git_version="v${pkg.version}",git_commit="",git_tree_state="",build_date="1970-01-01T00:00:00Z",go_version="bun${Bun.version}",compiler="bun",platform="${platform}"`;
    expect((await scrape()).get(`kubernetes_build_info{${labels}}`)).toBe(1);
  });
});

test("/metrics/probes carries process_start_time_seconds, as the kubelet's RegisterProcessStartTime puts it there", async () => {
  const probes = new Registry();
  createMetrics(new Registry(), probes);
  const text = await probes.metrics();
  expect(text).toContain("# HELP process_start_time_seconds [ALPHA] Start time of the process since unix epoch in seconds.");
  const value = Number(/^process_start_time_seconds (\S+)$/m.exec(text)?.[1]);
  expect(value).toBeLessThanOrEqual(Date.now() / 1000 + 0.01);
  // btime in whole seconds, uptime from after the exec (above).
  expect(value).toBeGreaterThan(Date.now() / 1000 - process.uptime() - 2);
});

test("process_network_*_bytes_total are the namespace's IpExt octets; process_virtual_memory_max_bytes the address-space limit", async () => {
  expect(ipExtOctets("TcpExt: A B\nTcpExt: 1 2\nIpExt: InNoRoutes InOctets OutOctets\nIpExt: 0 1234 5678\n")).toEqual({ in: 1234, out: 5678 });
  expect(ipExtOctets("")).toEqual({ in: 0, out: 0 });
  const s = await scrape();
  const now = ipExtOctets(readFileSync("/proc/self/net/netstat", "utf8"));
  expect(s.get("process_network_receive_bytes_total")).toBeGreaterThan(0);
  expect(s.get("process_network_receive_bytes_total")).toBeLessThanOrEqual(now.in);
  expect(s.get("process_network_transmit_bytes_total")).toBeLessThanOrEqual(now.out);
  const limit = /^Max address space\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"))![1]!;
  expect(s.get("process_virtual_memory_max_bytes")).toBe(limit === "unlimited" ? 2 ** 64 : Number(limit));
});
