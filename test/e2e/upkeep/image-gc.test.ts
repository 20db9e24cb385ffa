/**
 * Issue 19 item 3: dist/bunlet's image GC against a real containerd. The image filesystem is
 * "full" for the test (imageGCHighThresholdPercent 1, low 0, so whatever the host disk holds is
 * above the high threshold), imageMinimumGCAge 0 and a 2 s period: the unused busybox image is
 * removed, the sandbox (pause) image is kept, and since that leaves the filesystem above the low
 * threshold, the error says how much it wanted, what it freed and which image it kept and why.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { startTestContainerd, type TestContainerd } from "../../harness/containerd.ts";
import { bunletWaiter, ensureBuilt, freePort, startBunlet, type BunletProcess } from "../agent/bunlet.ts";

let ctd: TestContainerd;
let cri: CriClient;
let dir = "";
let bunlet: BunletProcess | undefined;
const waitFor = bunletWaiter(() => bunlet, 90_000);

beforeAll(async () => {
  ensureBuilt();
  ctd = await startTestContainerd({ name: "imagegc-e2e" });
  cri = createCriClient({ endpoint: ctd.endpoint });
  dir = mkdtempSync(join(tmpdir(), "bunlet-imagegc-e2e-"));
  mkdirSync(join(dir, "manifests"));
}, 180_000);

afterAll(async () => {
  bunlet?.signal("SIGKILL");
  await bunlet?.exited;
  cri?.close();
  await ctd?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

const tags = async () => (await cri.image.listImages({})).images.flatMap((i) => i.repoTags);

test("above the high threshold, the unused image goes, the sandbox image stays, and the shortfall is explained", async () => {
  expect(await tags()).toEqual(expect.arrayContaining(["docker.io/library/busybox:1.36", "docker.io/bunlet/pause:3.9"]));
  bunlet = await startBunlet(
    [
      `--container-runtime-endpoint=${ctd.endpoint}`,
      `--pod-manifest-path=${join(dir, "manifests")}`,
      `--root-dir=${join(dir, "state")}`,
      `--pod-logs-dir=${join(dir, "logs", "pods")}`,
      `--container-logs-dir=${join(dir, "logs", "containers")}`,
      "--hostname-override=imagegc-node",
      "--image-gc-high-threshold=1",
      "--image-gc-low-threshold=0",
      "--minimum-image-ttl-duration=0s",
      "--image-gc-period=2s",
      `--healthz-port=${await freePort()}`,
    ],
    await freePort(),
  );
  await waitFor("busybox removed by image GC", async () => !(await tags()).includes("docker.io/library/busybox:1.36"));
  expect(await tags()).toContain("docker.io/bunlet/pause:3.9");

  const removed = bunlet.lines.find((l) => l.msg === "Removing image to free bytes");
  expect(removed).toMatchObject({ image: "docker.io/library/busybox:1.36" });
  expect(bunlet.lines.find((l) => l.msg === "Disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold")).toMatchObject({
    highThreshold: 1,
    lowThreshold: 0,
  });
  const failed = await waitFor("the shortfall error", () => bunlet!.lines.find((l) => String(l.msg).startsWith("Image garbage collection failed")));
  expect(String(failed.err)).toMatch(/^Failed to garbage collect required amount of images\. Attempted to free \d+ bytes, but only found \d+ bytes eligible to free; kept pinned \(sandbox\): docker\.io\/bunlet\/pause:3\.9$/);
}, 180_000);
