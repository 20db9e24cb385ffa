// Image volumes (KEP-4639; kuberuntime's getImageVolumes, toKubeContainerImageVolumes and
// makeMounts): the pod's image volumes pulled once per sync with their own pull policy and
// events about the pod, each mount handed to the runtime as a read-only image mount with its
// subPath as imageSubPath, a failed pull failing the containers that mount it with the pull's
// reason, and the kubelet_image_volume_* counters.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { ObjectReference } from "kubernetes-types/core/v1";
import { c, uniquePod, startHarness, type Harness } from "./harness.ts";

const DATA = "registry.example/team/data:1.0";
const MISSING = "registry.example/team/missing:1.0";

let h: Harness;
const events: { ref: ObjectReference; type: string; reason: string; message: string }[] = [];
beforeEach(async () => {
  events.length = 0;
  h = await startHarness({ recorder: { event: (ref, type, reason, message) => void events.push({ ref, type, reason, message }) } });
  h.fake.setPullable(DATA, true);
});
afterEach(() => h.close());

const counter = async (name: string) => (await h.metrics.registry.getSingleMetricAsString(name)).split("\n").find((l) => l.startsWith(`${name} `));
const pulls = (image: string) => h.fake.calls.filter((x) => x.method === "PullImage" && (x.request as unknown as { image: { image: string } }).image.image === image).length;

describe("image volumes", () => {
  test("the image is pulled and mounted read-only by the runtime, the subPath as imageSubPath", async () => {
    const pod = uniquePod(
      {
        volumes: [{ name: "data", image: { reference: DATA, pullPolicy: "IfNotPresent" } }],
        containers: [c("a", { volumeMounts: [{ name: "data", mountPath: "/data", subPath: "dir" }] })],
      },
      { annotations: { team: "x" } },
    );
    const result = await h.sync(pod);
    expect(result.error).toBeUndefined();
    expect(pulls(DATA)).toBe(1);
    const mount = h.fake.state.containers[0].config.mounts.find((m) => m.containerPath === "/data");
    expect(mount?.hostPath).toBe("");
    expect(mount?.readonly).toBe(true);
    expect(mount?.imageSubPath).toBe("dir");
    expect(mount?.image?.image).toMatch(/^sha256:/);
    expect(mount?.image?.userSpecifiedImage).toBe(DATA);
    expect(mount?.image?.annotations).toEqual({ team: "x" });
    // The pull's events are about the pod itself: no container's fieldPath.
    const pulling = events.find((e) => e.reason === "Pulling");
    expect(pulling?.message).toBe(`Pulling image "${DATA}"`);
    expect(pulling?.ref.fieldPath).toBeUndefined();
    expect(await counter("kubelet_image_volume_requested_total")).toBe("kubelet_image_volume_requested_total 1");
    expect(await counter("kubelet_image_volume_mounted_succeed_total")).toBe("kubelet_image_volume_mounted_succeed_total 1");
    expect(await counter("kubelet_image_volume_mounted_errors_total")).toBe("kubelet_image_volume_mounted_errors_total 0");
  });

  test("an image volume is pulled once per sync, however many containers mount it", async () => {
    const mounts = [{ name: "data", mountPath: "/data" }];
    const pod = uniquePod({
      volumes: [{ name: "data", image: { reference: DATA, pullPolicy: "Always" } }],
      containers: [c("a", { volumeMounts: mounts }), c("b", { volumeMounts: mounts }), c("c")],
    });
    expect((await h.sync(pod)).error).toBeUndefined();
    expect(pulls(DATA)).toBe(1);
    expect(h.fake.state.containers.map((x) => x.config.mounts.some((m) => m.image?.userSpecifiedImage === DATA))).toEqual([true, true, false]);
  });

  test("a failed pull fails the containers that mount the volume with its reason; the others start", async () => {
    const pod = uniquePod({
      volumes: [{ name: "data", image: { reference: MISSING, pullPolicy: "IfNotPresent" } }],
      containers: [c("a", { volumeMounts: [{ name: "data", mountPath: "/data" }] }), c("b")],
    });
    await h.sync(pod);
    expect(h.fake.state.containers.map((x) => x.name)).toEqual(["b"]);
    expect(h.rm.getContainerWaitingReason(pod.metadata.uid!, "a")?.reason).toBe("ErrImagePull");
    const failedPull = events.find((e) => e.reason === "Failed" && e.message.startsWith(`Failed to pull image "${MISSING}"`));
    expect(failedPull?.ref.fieldPath).toBeUndefined();
    const failedCreate = events.find((e) => e.reason === "Failed" && e.ref.fieldPath === "spec.containers{a}");
    expect(failedCreate?.message).toBe("Error: ErrImagePull");
    expect(await counter("kubelet_image_volume_requested_total")).toBe("kubelet_image_volume_requested_total 0");
  });

  test("Never with the image missing: ErrImageNeverPull, nothing pulled", async () => {
    const pod = uniquePod({
      volumes: [{ name: "data", image: { reference: MISSING, pullPolicy: "Never" } }],
      containers: [c("a", { volumeMounts: [{ name: "data", mountPath: "/data" }] })],
    });
    await h.sync(pod);
    expect(h.calls()).not.toContain("PullImage");
    expect(h.rm.getContainerWaitingReason(pod.metadata.uid!, "a")).toEqual({
      reason: "ErrImageNeverPull",
      message: `Container image "${MISSING}" is not present with pull policy of Never`,
    });
  });
});
