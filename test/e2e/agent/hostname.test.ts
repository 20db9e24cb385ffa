/**
 * The pod's hostname on a real containerd (upstream NodeConformance "Override hostname of Pod",
 * test/e2e/common/node/pod_hostnameoverride.go): with dist/bunlet, the container's `hostname` and
 * `hostname -f` (the canonical name of the hostname's /etc/hosts entry) are spec.hostnameOverride
 * alone, whatever spec.hostname and spec.subdomain say; without an override, a subdomain puts the
 * FQDN first in /etc/hosts and setHostnameAsFQDN makes it the kernel's hostname.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod, PodList } from "../../../src/api/index.ts";
import { ContainerState, labels } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { agentFixture } from "./bunlet.ts";

const STEP_MS = 180_000;
const NODE = "hn-node";
const fx = agentFixture({ name: "hostname", hostname: NODE, waitTimeoutMs: 60_000, flags: ["--cluster-domain=cluster.local"] });
const { waitFor } = fx;

/** The spec's command, run in the pod's running container. */
async function hostnames(name: string): Promise<string> {
  const id = await waitFor(`${name} running`, async () => {
    const { containers } = await fx.cri.runtime.listContainers({ filter: { labelSelector: { [labels.KubernetesPodNameLabel]: `${name}-${NODE}` } } });
    return containers.find((c) => c.state === ContainerState.CONTAINER_RUNNING)?.id;
  });
  const r = await fx.cri.runtime.execSync({ containerId: id, cmd: ["sh", "-c", "echo $(hostname)';'$(hostname -f)';'"], timeout: 20n });
  expect(r.exitCode).toBe(0);
  return new TextDecoder().decode(r.stdout).trim();
}

// A static pod's name (and so its default hostname) is `<name>-<node>`.
const cases: [string, Partial<Pod["spec"]>, string][] = [
  ["a hostnameOverride that is a DNS subdomain", { hostnameOverride: "override.example.host" }, "override.example.host;override.example.host;"],
  ["hostname and hostnameOverride: the override", { hostname: "custom-host", hostnameOverride: "override-host" }, "override-host;override-host;"],
  ["only hostnameOverride", { hostnameOverride: "override-host" }, "override-host;override-host;"],
  ["subdomain and hostnameOverride: the override, no domain", { subdomain: "t", hostnameOverride: "override-host" }, "override-host;override-host;"],
  ["a subdomain without override: short hostname, FQDN from /etc/hosts", { subdomain: "t" }, `sub-${NODE};sub-${NODE}.t.default.svc.cluster.local;`],
  ["setHostnameAsFQDN: the FQDN is the hostname", { subdomain: "t", setHostnameAsFQDN: true }, `fqdn-${NODE}.t.default.svc.cluster.local;fqdn-${NODE}.t.default.svc.cluster.local;`],
];
const names = ["dns-sub", "both", "only", "with-sub", "sub", "fqdn"];

describe("Override hostname of Pod", () => {
  test("every case's pod runs", async () => {
    await fx.start();
    cases.forEach(([, spec], i) => writeFileSync(join(fx.manifests, `${names[i]}.json`), JSON.stringify(makePod({ name: names[i]!, spec: { terminationGracePeriodSeconds: 1, ...spec } }))));
    await waitFor("all pods Running in /pods", async () => {
      const list = (await (await fetch(`http://127.0.0.1:${fx.port}/pods`)).json()) as PodList;
      return names.every((n) => list.items.some((p) => p.metadata.name === `${n}-${NODE}` && p.status?.phase === "Running"));
    });
  }, STEP_MS);

  test.each(cases.map(([what, , want], i) => ({ what, want, name: names[i]! })))("$what", async ({ name, want }) => {
    expect(await hostnames(name)).toBe(want);
  }, STEP_MS);
});
