// The pull path the e2e tests rely on: a local plain-http registry and containerd's mirror entry
// for it (a `mirrors` entry in the version 2 config of 1.6 and 1.7, a hosts.toml for 2.x).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createCriClient } from "../../src/cri/index.ts";
import { startTestContainerd, type TestContainerd } from "../harness/containerd.ts";
import { startTestRegistry, type TestRegistry } from "../harness/registry.ts";

let registry: TestRegistry;

beforeAll(async () => {
  registry = await startTestRegistry();
}, 60_000);

afterAll(async () => {
  await registry?.stop();
}, 60_000);

describe.each(["1.6", "1.7", "2"] as const)("containerd %s", (version) => {
  let ctd: TestContainerd;

  beforeAll(async () => {
    ctd = await startTestContainerd({ name: `registry-${version}`, registryHost: registry.host, version });
  }, 60_000);

  afterAll(async () => {
    await ctd?.stop();
  }, 60_000);

  test("the harness registry serves busybox over plain http and containerd pulls it through CRI", async () => {
    expect(registry.host).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(registry.busyboxImage).toBe(`${registry.host}/bunlet/busybox:1.36`);
    const cri = createCriClient({ endpoint: ctd.endpoint });
    try {
      const { imageRef } = await cri.image.pullImage({ image: { image: registry.busyboxImage } });
      expect(imageRef).toMatch(/^sha256:[0-9a-f]{64}$/);
      const { image: status } = await cri.image.imageStatus({ image: { image: registry.busyboxImage } });
      expect(status?.repoTags).toContain(registry.busyboxImage);
      // Same content as the locally imported image: one build, two ways in.
      const local = await cri.image.imageStatus({ image: { image: "docker.io/library/busybox:1.36" } });
      expect(local.image?.id).toBe(imageRef);
    } finally {
      cri.close();
    }
  });
});
