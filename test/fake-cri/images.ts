/**
 * Image references as containerd's CRI normalises them: "busybox" → "docker.io/library/busybox:latest",
 * "quay.io/x/y" → "quay.io/x/y:latest"; digests stay as they are. Images are found by tag, by
 * digest reference or by id ("sha256:…").
 */
import { createHash } from "node:crypto";

export interface FakeImage {
  /** "sha256:<64 hex>", the image config digest. */
  id: string;
  repoTags: string[];
  repoDigests: string[];
  size: bigint;
  username: string;
  pinned: boolean;
}

export function normalizeImageRef(ref: string): string {
  let name = ref.trim();
  const at = name.indexOf("@");
  const digest = at >= 0 ? name.slice(at) : "";
  if (at >= 0) name = name.slice(0, at);
  const slash = name.indexOf("/");
  const first = slash >= 0 ? name.slice(0, slash) : "";
  const hasDomain = slash >= 0 && (first.includes(".") || first.includes(":") || first === "localhost");
  if (!hasDomain) name = `docker.io/${slash >= 0 ? name : `library/${name}`}`;
  const lastSegment = name.slice(name.lastIndexOf("/") + 1);
  if (!digest && !lastSegment.includes(":")) name = `${name}:latest`;
  return name + digest;
}

/** "docker.io/library/busybox:1.36" → "docker.io/library/busybox". */
function repository(normalized: string): string {
  const at = normalized.indexOf("@");
  if (at >= 0) return normalized.slice(0, at);
  const colon = normalized.lastIndexOf(":");
  return colon > normalized.lastIndexOf("/") ? normalized.slice(0, colon) : normalized;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export interface ImageOptions {
  id?: string;
  size?: number | bigint;
  /**
   * Whether the image has a repo digest. Pulled images have one; images imported from a tarball
   * (as the e2e harness does) have none, and then ContainerStatus.image_ref is the image id.
   */
  withDigest?: boolean;
}

/** A stable, realistic-looking image for `ref`: the same ref always gets the same id and digest. */
function makeImage(ref: string, options: ImageOptions = {}): FakeImage {
  const normalized = normalizeImageRef(ref);
  const isDigest = normalized.includes("@");
  const repoDigests = isDigest ? [normalized] : options.withDigest ? [`${repository(normalized)}@sha256:${sha256(`manifest:${normalized}`)}`] : [];
  return {
    id: options.id ?? `sha256:${sha256(`config:${normalized}`)}`,
    repoTags: isDigest ? [] : [normalized],
    repoDigests,
    size: BigInt(options.size ?? 1_000_000),
    username: "",
    pinned: false,
  };
}

/** Finds an image by id ("sha256:…", or a unique prefix of the hex part), tag or digest reference. */
export function findImage(images: Iterable<FakeImage>, ref: string): FakeImage | undefined {
  if (ref === "") return undefined;
  const list = [...images];
  const byId = list.find((img) => img.id === ref);
  if (byId) return byId;
  if (/^[0-9a-f]{6,64}$/.test(ref)) {
    const byPrefix = list.filter((img) => img.id.startsWith(`sha256:${ref}`));
    if (byPrefix.length === 1) return byPrefix[0];
  }
  const normalized = normalizeImageRef(ref);
  return list.find((img) => img.repoTags.includes(normalized) || img.repoDigests.includes(normalized));
}

/** Adds an image; a tag it carries moves away from any other image, as re-pulling a moved tag does. */
export function addImage(images: Map<string, FakeImage>, ref: string, options: ImageOptions = {}): FakeImage {
  const image = makeImage(ref, options);
  const existing = images.get(image.id);
  if (existing) {
    for (const tag of image.repoTags) if (!existing.repoTags.includes(tag)) existing.repoTags.push(tag);
    for (const d of image.repoDigests) if (!existing.repoDigests.includes(d)) existing.repoDigests.push(d);
    return existing;
  }
  for (const other of images.values()) other.repoTags = other.repoTags.filter((t) => !image.repoTags.includes(t));
  images.set(image.id, image);
  return image;
}

/** Removes the image `ref` names; false when there was none (containerd answers success either way). */
export function removeImage(images: Map<string, FakeImage>, ref: string): boolean {
  const image = findImage(images.values(), ref);
  if (!image) return false;
  images.delete(image.id);
  return true;
}
