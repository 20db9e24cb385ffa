// kubelet_podcertificate_states: the pod certificate manager's report at each scrape, as the
// kubelet's collector gives it (one series per signer and state).
import { expect, test } from "bun:test";
import { Registry } from "prom-client";
import { registerPodCertificateStates } from "../../../src/metrics/index.ts";

test("one series per signer and state, from the report at the scrape", async () => {
  const registry = new Registry();
  let report = [
    { signerName: "example.com/a", state: "fresh", count: 2 },
    { signerName: "example.com/b", state: "not_yet_issued", count: 1 },
  ];
  registerPodCertificateStates(registry, () => report);
  const text = await registry.metrics();
  expect(text).toContain("# HELP kubelet_podcertificate_states [ALPHA] Gauge vector reporting the number of pod certificate projected volume sources, faceted by signer_name and state.");
  expect(text).toContain('kubelet_podcertificate_states{signer_name="example.com/a",state="fresh"} 2');
  expect(text).toContain('kubelet_podcertificate_states{signer_name="example.com/b",state="not_yet_issued"} 1');
  report = [];
  expect(await registry.metrics()).not.toContain("kubelet_podcertificate_states{");
});
