// Image tarballs in <root-dir>/images are imported into containerd's k8s.io namespace (k3s's
// agent/images), once per tarball version; a broken tarball is reported and skipped.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUSYBOX_IMAGE, PAUSE_IMAGE, preloadImages } from "../../src/containerd/index.ts";
import { createCriClient } from "../../src/cri/index.ts";
import { createMemoryLogger } from "../../src/lib/testing.ts";
import { startTestContainerd, type TestContainerd } from "../harness/containerd.ts";
import { BUSYBOX_TAR, ensureImages, PAUSE_TAR } from "../harness/images.ts";

let ctd: TestContainerd;
let dir: string;

beforeAll(async () => {
  await ensureImages();
  ctd = await startTestContainerd({ name: "preload", skipImages: true });
  dir = mkdtempSync(join(tmpdir(), "bunlet-preload-"));
}, 120_000);

afterAll(async () => {
  await ctd?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

test("tarballs are imported once, and a broken one is logged and skipped", async () => {
  const images = join(dir, "images");
  mkdirSync(images);
  copyFileSync(BUSYBOX_TAR, join(images, "busybox.tar"));
  copyFileSync(PAUSE_TAR, join(images, "pause.tar"));
  writeFileSync(join(images, "broken.tar"), "not a tarball");
  writeFileSync(join(images, ".hidden.tar"), "ignored");
  const log = createMemoryLogger();
  const stampFile = join(dir, "stamps.json");

  const first = preloadImages({ dir: images, socketPath: ctd.socketPath, stampFile, log });
  expect(first.imported).toEqual(["busybox.tar", "pause.tar"]);
  expect(first.failed).toEqual(["broken.tar"]);
  expect(log.lines.some((l) => l.level === "error" && String(l.file).endsWith("broken.tar"))).toBe(true);

  const cri = createCriClient({ endpoint: ctd.endpoint });
  for (const image of [BUSYBOX_IMAGE, PAUSE_IMAGE]) {
    const st = await cri.image.imageStatus({ image: { image } });
    expect(st.image?.repoTags).toContain(image);
  }
  cri.close();

  const second = preloadImages({ dir: images, socketPath: ctd.socketPath, stampFile, log });
  expect(second.imported).toEqual([]);
  expect(second.skipped).toEqual(["busybox.tar", "pause.tar"]);
});

test("a missing images dir is nothing to do", () => {
  const r = preloadImages({ dir: join(dir, "absent"), socketPath: ctd.socketPath, stampFile: join(dir, "s2.json"), log: createMemoryLogger() });
  expect(r).toEqual({ imported: [], skipped: [], failed: [] });
});
