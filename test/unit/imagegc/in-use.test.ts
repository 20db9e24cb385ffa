// Which images the image manager keeps (detectImages with handleImageVolumes): an image a
// container runs, and an image a container mounts as an image volume (named by the runtime's
// status of the container), are in use; the others are removed by DeleteUnusedImages.
import { expect, test } from "bun:test";
import type { CriClient } from "../../../src/cri/index.ts";
import { CriError, GrpcCode } from "../../../src/cri/index.ts";
import { ImageGCManager } from "../../../src/imagegc/index.ts";
import { silentLogger } from "../../../src/lib/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";

const image = (id: string) => ({ id, size: 100n, repoTags: [`example/${id}:1`], repoDigests: [], pinned: false });

test("an image mounted as an image volume is in use; an unused one goes; a container gone meanwhile is skipped", async () => {
  const removed: string[] = [];
  const cri = {
    image: {
      listImages: async () => ({ images: [image("sha256:run"), image("sha256:mounted"), image("sha256:unused")] }),
      removeImage: async ({ image: { image: id } }: { image: { image: string } }) => void removed.push(id),
    },
    runtime: {
      listContainers: async () => ({
        containers: [
          { id: "c1", imageRef: "sha256:run", image: { image: "sha256:run" } },
          { id: "gone", imageRef: "sha256:run", image: { image: "sha256:run" } },
        ],
      }),
      containerStatus: async ({ containerId }: { containerId: string }) => {
        if (containerId === "gone") throw new CriError("ContainerStatus", GrpcCode.NOT_FOUND, "container not found");
        return { status: { mounts: [{ containerPath: "/data", image: { image: "sha256:mounted" } }, { containerPath: "/etc/hosts" }] } };
      },
    },
  } as unknown as Pick<CriClient, "runtime" | "image">;
  const gc = new ImageGCManager(
    { cri, imageFs: async () => undefined, sandboxImage: async () => undefined, clock: new FakeClock(), log: silentLogger },
    { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 0, maxAgeMs: 0, periodMs: 300_000 },
  );
  expect(await gc.deleteUnusedImages(new AbortController().signal)).toBe(100);
  expect(removed).toEqual(["sha256:unused"]);
});
