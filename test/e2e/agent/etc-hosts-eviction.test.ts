/**
 * CVE-2020-8557: the kubelet left a pod's managed /etc/hosts out of its ephemeral-storage usage, so
 * a container (root, CAP_DAC_OVERRIDE by default) could write past its limit through that file
 * and fill the node's disk without ever being evicted. Here a pod limited to 5Mi of ephemeral
 * storage writes 20 MiB to /etc/hosts and nothing else: bunlet's /stats/summary counts the file,
 * and the eviction manager evicts the pod (Failed, reason Evicted, the kubelet's message). Static
 * pods are critical to the kubelet, so the node runs with bunlet's --evict-static-pods.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod, PodList } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { agentFixture } from "./bunlet.ts";

const fx = agentFixture({ name: "etc-hosts-eviction", hostname: "e2e-node", waitTimeoutMs: 60_000, flags: ["--evict-static-pods=true"] });
const { waitFor } = fx;

async function apiPod(name: string): Promise<Pod | undefined> {
  const list = (await (await fetch(`http://127.0.0.1:${fx.port}/pods`)).json()) as PodList;
  return list.items.find((i) => i.metadata.name === `${name}-e2e-node`);
}

describe("dist/bunlet counts the managed /etc/hosts (CVE-2020-8557)", () => {
  test("a pod writing past its ephemeral-storage limit through /etc/hosts is evicted", async () => {
    await fx.start();
    const pod = makePod({
      name: "hosts-writer",
      namespace: "default",
      container: {
        name: "main",
        image: BUSYBOX_IMAGE,
        imagePullPolicy: "Never",
        command: ["sh", "-c", "dd if=/dev/zero of=/etc/hosts bs=1M count=20 && sleep 3600"],
        resources: { limits: { "ephemeral-storage": "5Mi" } },
      },
      spec: { terminationGracePeriodSeconds: 1, restartPolicy: "Never" },
    });
    writeFileSync(join(fx.manifests, "hosts-writer.json"), JSON.stringify(pod));
    const running = await waitFor("hosts-writer running", async () => {
      const p = await apiPod("hosts-writer");
      return p?.status?.containerStatuses?.[0]?.state?.running ? p : undefined;
    });
    // The Summary counts the file: the pod's ephemeral storage is above the 20 MiB written.
    const summaryPod = await waitFor("the pod's ephemeral storage over 20Mi in /stats/summary", async () => {
      const summary = (await (await fetch(`http://127.0.0.1:${fx.port}/stats/summary`)).json()) as { pods: { podRef: { uid: string }; "ephemeral-storage"?: { usedBytes?: number } }[] };
      const p = summary.pods.find((s) => s.podRef.uid === running.metadata.uid);
      return (p?.["ephemeral-storage"]?.usedBytes ?? 0) >= 20 * 1024 * 1024 ? p : undefined;
    });
    expect(summaryPod).toBeDefined();
    // The eviction manager's next round (every 10 s) evicts it.
    const evicted = await waitFor("hosts-writer evicted", async () => {
      const p = await apiPod("hosts-writer");
      return p?.status?.reason === "Evicted" ? p : undefined;
    });
    expect(evicted.status?.phase).toBe("Failed");
    expect(evicted.status?.message).toBe("Pod ephemeral local storage usage exceeds the total limit of containers 5Mi. ");
  }, 150_000);
});
