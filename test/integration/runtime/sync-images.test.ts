import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { SyncError } from "../../../src/runtime/index.ts";
import { BUSYBOX, c, uniquePod, startHarness, type Harness } from "./harness.ts";

let h: Harness;
beforeEach(async () => (h = await startHarness()));
afterEach(() => h.close());

const MISSING = "registry.example/team/missing:1.0";
const reason = (pod: { metadata: { uid?: string } }) => h.rm.getContainerWaitingReason(pod.metadata.uid!, "a");

describe("image pull policy", () => {
  test("IfNotPresent with the image present does not pull", async () => {
    await h.sync(uniquePod({ containers: [c("a", { imagePullPolicy: "IfNotPresent" })] }));
    expect(h.calls()).not.toContain("PullImage");
  });

  test("Always pulls even when the image is present", async () => {
    await h.sync(uniquePod({ containers: [c("a", { imagePullPolicy: "Always" })] }));
    // After the pull, ImageStatus reads the image's size for the Pulled event (the kubelet's GetImageSize).
    expect(h.calls()).toEqual(["RunPodSandbox", "PodSandboxStatus", "ImageStatus", "PullImage", "ImageStatus", "ImageStatus", "CreateContainer", "StartContainer"]);
    const pull = h.fake.calls.find((x) => x.method === "PullImage")!.request as unknown as { sandboxConfig?: { metadata?: { name: string } } };
    expect(pull.sandboxConfig?.metadata?.name).toStartWith("pod");
  });

  test("an untagged image defaults to :latest and to pull policy Always", async () => {
    h.fake.setPullable("docker.io/library/alpine:latest", true);
    await h.sync(uniquePod({ containers: [c("a", { image: "alpine" })] }));
    const pull = h.fake.calls.find((x) => x.method === "PullImage")!.request as unknown as { image: { image: string } };
    expect(pull.image.image).toBe("alpine:latest");
  });

  test("IfNotPresent pulls a missing pullable image, and the container runs the pulled image", async () => {
    h.fake.setPullable(MISSING, true);
    const pod = uniquePod({ containers: [c("a", { image: MISSING, imagePullPolicy: "IfNotPresent" })] });
    const result = await h.sync(pod);
    expect(result.error).toBeUndefined();
    expect(h.calls()).toContain("PullImage");
    const created = h.fake.state.containers[0];
    expect(created.config.image?.image).toMatch(/^sha256:/);
    expect(created.config.image?.userSpecifiedImage).toBe(MISSING);
  });

  test("Never with a missing image fails with ErrImageNeverPull and pulls nothing", async () => {
    const pod = uniquePod({ containers: [c("a", { image: MISSING, imagePullPolicy: "Never" })] });
    const result = await h.sync(pod);
    expect(h.calls()).not.toContain("PullImage");
    expect(reason(pod)).toEqual({ reason: "ErrImageNeverPull", message: `Container image "${MISSING}" is not present with pull policy of Never` });
    expect(result.error).toBeInstanceOf(SyncError);
    expect((result.error as SyncError).backoffUntil).toBe(0);
  });

  test("Never with the image present runs it", async () => {
    const result = await h.sync(uniquePod({ containers: [c("a", { image: BUSYBOX, imagePullPolicy: "Never" })] }));
    expect(result.error).toBeUndefined();
  });

  test("an invalid image name fails with InvalidImageName", async () => {
    const pod = uniquePod({ containers: [c("a", { image: "Not A Valid/Image" })] });
    await h.sync(pod);
    expect(reason(pod)?.reason).toBe("InvalidImageName");
    expect(reason(pod)?.message).toBe(
      'Failed to apply default image tag "Not A Valid/Image": couldn\'t parse image name "Not A Valid/Image": invalid reference format: repository name (Image) must be lowercase',
    );
  });
});

describe("image pull backoff", () => {
  test("a failing pull gives ErrImagePull, then ImagePullBackOff until 10 s passed, then 20 s after the next failure", async () => {
    const pod = uniquePod({ containers: [c("a", { image: MISSING, imagePullPolicy: "IfNotPresent" })] });
    let result = await h.sync(pod);
    expect(h.calls().slice(-2)).toEqual(["ImageStatus", "PullImage"]);
    expect(reason(pod)?.reason).toBe("ErrImagePull");
    expect(reason(pod)?.message).toContain("not found");
    expect(result.error).toBeInstanceOf(SyncError);
    expect((result.error as SyncError).backoffUntil).toBe(0);
    const failedAt = h.clock.now();

    result = await h.sync(pod);
    expect(h.calls()).toEqual(["ImageStatus"]);
    expect(reason(pod)).toEqual({ reason: "ImagePullBackOff", message: `Back-off pulling image "${MISSING}"` });
    expect(result.error).toBeInstanceOf(SyncError);
    expect((result.error as SyncError).backoffUntil).toBe(failedAt + 10_000);

    await h.clock.advance(10_000);
    await h.sync(pod);
    expect(h.calls()).toEqual(["ImageStatus", "PullImage"]);
    expect(reason(pod)?.reason).toBe("ErrImagePull");

    await h.clock.advance(10_000);
    await h.sync(pod);
    expect(reason(pod)?.reason).toBe("ImagePullBackOff");
    await h.clock.advance(10_000);
    h.fake.setPullable(MISSING, true);
    const ok = await h.sync(pod);
    expect(ok.error).toBeUndefined();
    expect(reason(pod)).toBeUndefined();
  });

  test("pulls are keyed per pod: another pod's backoff does not block", async () => {
    const a = uniquePod({ containers: [c("a", { image: MISSING, imagePullPolicy: "IfNotPresent" })] });
    const b = uniquePod({ containers: [c("a", { image: MISSING, imagePullPolicy: "IfNotPresent" })] });
    await h.sync(a);
    await h.sync(b);
    expect(h.calls()).toContain("PullImage");
  });
});
