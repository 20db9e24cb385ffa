/**
 * Image volumes (KEP-4639, GA since Kubernetes 1.36) on a real containerd 2.x, which mounts an
 * image given in a CRI mount: a static pod mounts the busybox image (present, IfNotPresent) whole
 * at /img and its `bin` directory through subPath at /only-bin; the container finds the image's
 * files there and cannot write to them.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { labels } from "../../../src/cri/index.ts";
import { agentFixture } from "./bunlet.ts";

const fx = agentFixture({ name: "image-volume", hostname: "e2e-node", waitTimeoutMs: 60_000, containerdVersion: "2" });

const pod = `
apiVersion: v1
kind: Pod
metadata: {name: imgvol}
spec:
  restartPolicy: Never
  volumes:
  - name: img
    image: {reference: docker.io/library/busybox:1.36, pullPolicy: IfNotPresent}
  containers:
  - name: main
    image: docker.io/library/busybox:1.36
    command: [sh, -c, "test -x /img/bin/busybox && test -x /only-bin/busybox && test ! -e /only-bin/bin && ! touch /img/written 2>/dev/null"]
    volumeMounts:
    - {name: img, mountPath: /img}
    - {name: img, mountPath: /only-bin, subPath: bin}
`;

test("the image's files are in the container, read-only, whole and through subPath", async () => {
  await fx.start();
  writeFileSync(join(fx.manifests, "imgvol.yaml"), pod);
  const exited = await fx.waitFor("imgvol's container ended", async () => {
    const { containers } = await fx.cri.runtime.listContainers({ filter: { labelSelector: { [labels.KubernetesPodNameLabel]: "imgvol-e2e-node" } } });
    const c = containers[0];
    if (!c) return undefined;
    const { status } = await fx.cri.runtime.containerStatus({ containerId: c.id });
    return status?.state === 2 ? status : undefined;
  });
  expect(exited.exitCode).toBe(0);
  // The runtime reports the image it mounted: what image GC counts as in use.
  const img = exited.mounts.find((m) => m.containerPath === "/img");
  expect(img?.image?.image).toMatch(/^sha256:/);
  expect(img?.readonly).toBe(true);
}, 120_000);
