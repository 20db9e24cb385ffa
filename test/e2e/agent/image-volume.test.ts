/**
 * Image volumes (KEP-4639, GA since Kubernetes 1.36) on a real containerd 2.x, which mounts an
 * image given in a CRI mount: a static pod mounts the busybox image (present, IfNotPresent) at
 * /img; the container finds the image's files there and cannot write to them. (A subPath goes to
 * the runtime as imageSubPath, tested against the fake CRI: containerd 2.1, Debian's, ignores that
 * field and mounts the whole image; containerd 2.2 honours it.)
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { labels } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { agentFixture } from "./bunlet.ts";

const fx = agentFixture({ name: "image-volume", hostname: "e2e-node", waitTimeoutMs: 60_000, containerdVersion: "2" });

/** A static pod as written by hand (no namespace) whose container checks the mounted image and exits. */
const pod = makePod({
  name: "imgvol",
  metadata: { namespace: undefined },
  container: {
    name: "main",
    image: BUSYBOX_IMAGE,
    command: [
      "sh",
      "-c",
      [
        "ok=0",
        'check() { if sh -c "$1" 2>/dev/null; then echo "ok: $1"; else echo "failed: $1"; ok=1; fi; }',
        'check "test -x /img/bin/busybox"',
        'check "! touch /img/written"',
        "ls /img | head -20",
        "exit $ok",
      ].join("\n"),
    ],
    volumeMounts: [{ name: "img", mountPath: "/img" }],
  },
  spec: { restartPolicy: "Never", volumes: [{ name: "img", image: { reference: BUSYBOX_IMAGE, pullPolicy: "IfNotPresent" } }] },
});

test("the image's files are in the container, read-only", async () => {
  await fx.start();
  writeFileSync(join(fx.manifests, "imgvol.json"), JSON.stringify(pod));
  const exited = await fx.waitFor("imgvol's container ended", async () => {
    const { containers } = await fx.cri.runtime.listContainers({ filter: { labelSelector: { [labels.KubernetesPodNameLabel]: "imgvol-e2e-node" } } });
    const c = containers[0];
    if (!c) return undefined;
    const { status } = await fx.cri.runtime.containerStatus({ containerId: c.id });
    return status?.state === 2 ? status : undefined;
  });
  // The container's own account of each check, for a failure to say which one.
  const log = readFileSync(exited.logPath, "utf8");
  expect(log).not.toContain("failed:");
  expect(exited.exitCode).toBe(0);
  // The runtime reports the image it mounted: what image GC counts as in use.
  const img = exited.mounts.find((m) => m.containerPath === "/img");
  expect(img?.image?.image).toMatch(/^sha256:/);
  expect(img?.readonly).toBe(true);
}, 120_000);
