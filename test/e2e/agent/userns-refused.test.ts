/**
 * A `hostUsers: false` pod on a runtime that cannot make user namespaces (Debian 12's containerd
 * 1.6, which lists no runtime handlers in its Status) is refused as the kubelet refuses it: no
 * sandbox, the FailedCreatePodSandBox event with the kubelet's message, the error counted. It
 * never runs in the node's user namespace; a pod beside it without the field runs.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { labels } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { agentFixture } from "./bunlet.ts";

const fx = agentFixture({ name: "userns-refused", hostname: "e2e-node", waitTimeoutMs: 60_000 });

const pod = (name: string, hostUsers?: boolean) =>
  makePod({
    name,
    metadata: { namespace: undefined },
    container: { name: "main", image: BUSYBOX_IMAGE, command: ["sleep", "3600"] },
    spec: { hostUsers, terminationGracePeriodSeconds: 1 },
  });

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${fx.port}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)`, "m").exec(text)?.[1] ?? "NaN");
}

test("the pod is refused with the kubelet's event and never gets a sandbox", async () => {
  await fx.start(["--v=3"]);
  writeFileSync(join(fx.manifests, "refused.json"), JSON.stringify(pod("refused", false)));
  writeFileSync(join(fx.manifests, "plain.json"), JSON.stringify(pod("plain")));
  const event = await fx.waitFor("FailedCreatePodSandBox for the refused pod", () =>
    fx.bunlet!.lines.find((l) => l.msg === "Event occurred" && l.reason === "FailedCreatePodSandBox" && l.object === "default/refused-e2e-node"),
  );
  expect(event.type).toBe("Warning");
  expect(event.message).toBe("Failed to create pod sandbox: can't set `spec.hostUsers: false`, runtime does not support user namespaces");
  await fx.waitFor("the plain pod running", async () => {
    const { containers } = await fx.cri.runtime.listContainers({ filter: { labelSelector: { [labels.KubernetesPodNameLabel]: "plain-e2e-node" } } });
    return containers.some((c) => c.state === 1);
  });
  const { items } = await fx.cri.runtime.listPodSandbox({ filter: { labelSelector: { [labels.KubernetesPodNameLabel]: "refused-e2e-node" } } });
  expect(items).toEqual([]);
  expect(await metric("kubelet_started_user_namespaced_pods_total")).toBeGreaterThanOrEqual(1);
  expect(await metric("kubelet_started_user_namespaced_pods_errors_total")).toBe(await metric("kubelet_started_user_namespaced_pods_total"));
  const api = (await (await fetch(`http://127.0.0.1:${fx.port}/pods`)).json()) as { items: { metadata: { name: string }; status: { phase?: string } }[] };
  expect(api.items.find((p) => p.metadata.name === "refused-e2e-node")?.status.phase).toBe("Pending");
}, 180_000);
