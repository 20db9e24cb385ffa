/**
 * Issue 19 item 3: dist/bunlet's image GC against a real containerd. The image filesystem is
 * "full" for the test (imageGCHighThresholdPercent 1, low 0, so whatever the host disk holds is
 * above the high threshold), imageMinimumGCAge 0 and a 2 s period: the unused busybox image is
 * removed, the sandbox (pause) image is kept, and since that leaves the filesystem above the low
 * threshold, the error says how much it wanted, what it freed and which image it kept and why.
 */
import { expect, test } from "bun:test";
import { agentFixture } from "../agent/bunlet.ts";

const fx = agentFixture({ name: "imagegc", hostname: "imagegc-node", waitTimeoutMs: 90_000 });
const waitFor = fx.waitFor;

const tags = async () => (await fx.cri.image.listImages({})).images.flatMap((i) => i.repoTags);

test("above the high threshold, the unused image goes, the sandbox image stays, and the shortfall is explained", async () => {
  expect(await tags()).toEqual(expect.arrayContaining(["docker.io/library/busybox:1.36", "registry.k8s.io/pause:3.10.2"]));
  const bunlet = await fx.start(["--image-gc-high-threshold=1", "--image-gc-low-threshold=0", "--minimum-image-ttl-duration=0s", "--image-gc-period=2s"]);
  await waitFor("busybox removed by image GC", async () => !(await tags()).includes("docker.io/library/busybox:1.36"));
  expect(await tags()).toContain("registry.k8s.io/pause:3.10.2");

  const removed = bunlet.lines.find((l) => l.msg === "Removing image to free bytes");
  expect(removed).toMatchObject({ image: "docker.io/library/busybox:1.36" });
  expect(bunlet.lines.find((l) => l.msg === "Disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold")).toMatchObject({
    highThreshold: 1,
    lowThreshold: 0,
  });
  const failed = await waitFor("the shortfall error", () => bunlet.lines.find((l) => String(l.msg).startsWith("Image garbage collection failed")));
  expect(String(failed.err)).toMatch(/^Failed to garbage collect required amount of images\. Attempted to free \d+ bytes, but only found \d+ bytes eligible to free; kept pinned \(sandbox\): registry\.k8s\.io\/pause:3\.10\.2$/);
}, 180_000);
