/** Image pulls through CRI from the harness's local registry: pull policies, a missing image, backoff. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestRegistry, type TestRegistry } from "../../harness/registry.ts";
import { runningPodFromStatus } from "../../../src/container/index.ts";
import { SyncError } from "../../../src/runtime/index.ts";
import { busybox, e2ePod, eventually, startE2eRuntime, type E2eRuntime } from "./setup.ts";

let registry: TestRegistry;
let rt: E2eRuntime;
beforeAll(async () => {
  registry = await startTestRegistry();
  rt = await startE2eRuntime("rt-images", registry.host);
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  await registry?.stop();
}, 60_000);



describe("image pulls from the local registry", () => {
  test("IfNotPresent pulls a missing image once, and the container runs it", async () => {
    const pod = e2ePod("pulled", { containers: [busybox("c", ["sleep", "3600"], { image: registry.busyboxImage, imagePullPolicy: "IfNotPresent" })] });
    const before = await rt.cri.image.imageStatus({ image: { image: registry.busyboxImage } });
    expect(before.image).toBeUndefined();
    const result = await rt.sync(pod);
    expect(result.error).toBeUndefined();
    const after = await rt.cri.image.imageStatus({ image: { image: registry.busyboxImage } });
    expect(after.image?.repoTags).toContain(registry.busyboxImage);
    const s = await eventually("the container to run", async () => {
      const st = await rt.status(pod);
      return st.containerStatuses.find((c) => c.state === "running") ? st : undefined;
    });
    // The runtime reports the repo digest the image was pulled by (status.imageID).
    expect(after.image!.repoDigests).toContain(s.containerStatuses[0].imageRef);
    expect(rt.log.lines.some((l) => l.msg === "Successfully pulled image" && l.image === registry.busyboxImage)).toBe(true);
    await rt.rm.killPod(pod, runningPodFromStatus(s), { gracePeriodOverride: 2, signal: rt.signal });
  }, 60_000);

  test("Always pulls again even though the image is present", async () => {
    const pod = e2ePod("always", { containers: [busybox("c", ["sleep", "3600"], { image: registry.busyboxImage, imagePullPolicy: "Always" })] });
    const pulled = rt.log.lines.filter((l) => l.msg === "Successfully pulled image").length;
    expect((await rt.sync(pod)).error).toBeUndefined();
    expect(rt.log.lines.filter((l) => l.msg === "Successfully pulled image").length).toBe(pulled + 1);
    await rt.rm.killPod(pod, runningPodFromStatus(await rt.status(pod)), { gracePeriodOverride: 2, signal: rt.signal });
  }, 60_000);

  test("a missing image gives ErrImagePull, then ImagePullBackOff without pulling", async () => {
    const missing = `${registry.host}/bunlet/missing:1.0`;
    const pod = e2ePod("missing", { containers: [busybox("c", ["sleep", "3600"], { image: missing, imagePullPolicy: "IfNotPresent" })] });
    const first = await rt.sync(pod);
    expect(first.steps.find((s) => s.target === "c")?.error?.reason).toBe("ErrImagePull");
    expect(rt.rm.getContainerWaitingReason(pod.metadata.uid!, "c")?.message).toContain("not found");
    const second = await rt.sync(pod);
    expect(rt.rm.getContainerWaitingReason(pod.metadata.uid!, "c")).toEqual({ reason: "ImagePullBackOff", message: `Back-off pulling image "${missing}"` });
    expect(second.error).toBeInstanceOf(SyncError);
    expect((second.error as SyncError).backoffUntil).toBeGreaterThan(0);
    expect((await rt.status(pod)).containerStatuses).toEqual([]);
    await rt.rm.killPod(pod, runningPodFromStatus(await rt.status(pod)), { gracePeriodOverride: 2, signal: rt.signal });
  }, 60_000);

  test("Never with an image that is not present fails with ErrImageNeverPull", async () => {
    const pod = e2ePod("never", { containers: [busybox("c", ["true"], { image: `${registry.host}/bunlet/other:2`, imagePullPolicy: "Never" })] });
    await rt.sync(pod);
    expect(rt.rm.getContainerWaitingReason(pod.metadata.uid!, "c")?.reason).toBe("ErrImageNeverPull");
    await rt.rm.killPod(pod, runningPodFromStatus(await rt.status(pod)), { gracePeriodOverride: 2, signal: rt.signal });
  }, 60_000);
});
