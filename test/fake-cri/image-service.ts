/**
 * ImageService handlers. A pull succeeds for images the test made pullable (or that are already
 * present and not made unpullable) and fails like containerd does when the registry has no such
 * reference; a reference the test put behind registry credentials pulls only with that user
 * name and password in the request's AuthConfig, and otherwise fails as containerd does on a
 * 401. ImageStatus of a missing image is an empty response, not an error.
 */
import type { DescMessage, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import type { ImageService } from "../../src/cri/index.ts";
import type { Clock } from "../../src/lib/index.ts";
import { toImage } from "./convert.ts";
import { unknown } from "./errors.ts";
import { addImage, findImage, normalizeImageRef, removeImage } from "./images.ts";
import type { FakeStore } from "./store.ts";

type Methods = (typeof ImageService)["method"];
type Req<K extends keyof Methods> = Methods[K]["input"] extends infer I extends DescMessage ? MessageShape<I> : never;
type Res<K extends keyof Methods> = MessageInitShape<Methods[K]["output"]>;

export type ImageHandlers = { [K in keyof Methods]: (request: Req<K>, signal: AbortSignal) => Res<K> | Promise<Res<K>> };

/** Explicit pullability per normalised reference; absent = pullable when already present. */
export type Pullability = Map<string, boolean>;

/** The "username:password" a registry wants per normalised reference; absent = no authentication. */
export type PullAuth = Map<string, string>;

export function imageHandlers(store: FakeStore, pullable: Pullability, clock: Clock, pullAuth: PullAuth = new Map()): ImageHandlers {
  return {
    // containerd 1.6 ignores ListImages' filter and lists everything; so does the fake.
    listImages: () => ({ images: [...store.images.values()].map(toImage) }),
    imageStatus: (req) => {
      const image = findImage(store.images.values(), req.image?.image ?? "");
      return image ? { image: toImage(image), info: {} } : {};
    },
    pullImage: (req) => {
      const ref = req.image?.image ?? "";
      const normalized = normalizeImageRef(ref);
      const present = findImage(store.images.values(), ref);
      const wanted = pullAuth.get(normalized);
      if (wanted !== undefined && `${req.auth?.username ?? ""}:${req.auth?.password ?? ""}` !== wanted) {
        const host = normalized.split("/")[0];
        throw unknown(
          `failed to pull and unpack image "${normalized}": failed to resolve reference "${normalized}": unexpected status from HEAD request to https://${host}/v2/: 401 Unauthorized`,
        );
      }
      const allowed = pullable.get(normalized) ?? present !== undefined;
      if (!allowed) {
        throw unknown(
          `failed to pull and unpack image "${normalized}": failed to resolve reference "${normalized}": ${normalized}: not found`,
        );
      }
      return { imageRef: (present ?? addImage(store.images, ref, { withDigest: true })).id };
    },
    removeImage: (req) => {
      removeImage(store.images, req.image?.image ?? "");
      return {};
    },
    imageFsInfo: () => {
      const images = [...store.images.values()];
      return {
        imageFilesystems: [
          {
            timestamp: BigInt(Math.floor(clock.now())) * 1_000_000n,
            fsId: { mountpoint: "/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs" },
            usedBytes: { value: images.reduce((sum, img) => sum + img.size, 0n) },
            inodesUsed: { value: BigInt(images.length * 100) },
          },
        ],
        containerFilesystems: [],
      };
    },
  };
}
