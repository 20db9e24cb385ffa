import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { X509Certificate } from "node:crypto";
import { Registry } from "prom-client";
import { FakeClock } from "../../../src/lib/testing.ts";
import { registerCertificateTtl } from "../../../src/metrics/index.ts";

function selfSigned(days: number): string {
  const dir = mkdtempSync(join(tmpdir(), "bunlet-cert-"));
  try {
    const r = spawnSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", String(days), "-subj", "/CN=node", "-keyout", join(dir, "k"), "-out", join(dir, "c")]);
    if (r.status !== 0) throw new Error(r.stderr.toString());
    return readFileSync(join(dir, "c"), "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("the TTL gauges count whole seconds to the certificate's notAfter, negative once past, +Inf without one", async () => {
  const pem = selfSigned(2);
  const notAfter = Date.parse(new X509Certificate(pem).validTo);
  const clock = new FakeClock(notAfter - 86_400_500);
  const registry = new Registry();
  let current: string | undefined = pem;
  registerCertificateTtl(registry, "client", () => current, () => clock.now());
  registerCertificateTtl(registry, "server", () => {
    throw new Error("unreadable");
  }, () => clock.now());
  const text = async () => await registry.metrics();
  expect(await text()).toContain("kubelet_certificate_manager_client_ttl_seconds 86400\n");
  expect(await text()).toContain("kubelet_certificate_manager_server_ttl_seconds +Inf\n");
  expect(await text()).toContain("# HELP kubelet_certificate_manager_client_ttl_seconds [ALPHA] Gauge of the TTL (time-to-live) of the Kubelet's client certificate.");
  await clock.advance(86_400_500 + 10_000);
  expect(await text()).toContain("kubelet_certificate_manager_client_ttl_seconds -10\n");
  current = "not a certificate";
  expect(await text()).toContain("kubelet_certificate_manager_client_ttl_seconds +Inf\n");
  current = undefined;
  expect(await text()).toContain("kubelet_certificate_manager_client_ttl_seconds +Inf\n");
});
