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
export function repository(normalized: string): string {
  const at = normalized.indexOf("@");
  if (at >= 0) return normalized.slice(0, at);
  const colon = normalized.lastIndexOf(":");
  return colon > normalized.lastIndexOf("/") ? normalized.slice(0, colon) : normalized;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A stable, realistic-looking image for `ref`: the same ref always gets the same id and digest. */
export function makeImage(ref: string, options: { id?: string; size?: number | bigint } = {}): FakeImage {
  const normalized = normalizeImageRef(ref);
  const isDigest = normalized.includes("@");
  const repoDigest = isDigest ? normalized : `${repository(normalized)}@sha256:${sha256(`manifest:${normalized}`)}`;
  return {
    id: options.id ?? `sha256:${sha256(`config:${normalized}`)}`,
    repoTags: isDigest ? [] : [normalized],
    repoDigests: [repoDigest],
    size: BigInt(options.size ?? 1_000_000),
    username: "",
    pinned: false,
  };
}

/** Finds an image by id (full or "sha256:" prefix), tag or digest reference. */
export function findImage(images: Iterable<FakeImage>, ref: string): FakeImage | undefined {
  const list = [...images];
  const byId = list.find((img) => img.id === ref || img.id === `sha256:${ref}`);
  if (byId) return byId;
  if (ref === "") return undefined;
  const normalized = normalizeImageRef(ref);
  return list.find((img) => img.repoTags.includes(normalized) || img.repoDigests.includes(normalized));
}
