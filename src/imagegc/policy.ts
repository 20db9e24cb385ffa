/**
 * The image manager's decisions, pure (the kubelet's pkg/kubelet/images/image_gc_manager.go):
 * what it remembers of each image (when first seen, when last used), how much to free for a
 * given image filesystem usage, and which images go, least recently used first, never one in
 * use, pinned (the sandbox image) or younger than imageMinimumGCAge. Unlike the kubelet, a plan
 * that frees less than wanted says which images were kept and why (kubernetes#71869).
 */

export interface RuntimeImage {
  id: string;
  size: number;
  tags: string[];
  pinned: boolean;
}

/** imageRecord: first detected, last used, size, pinned. */
export interface ImageRecord {
  firstDetected: number;
  lastUsed: number;
  size: number;
  pinned: boolean;
  tags: string[];
}

/**
 * detectImages: new images are first detected now; an image in use (by any container, running
 * or not) is last used now; images that are gone are forgotten.
 */
export function detectImages(records: ReadonlyMap<string, ImageRecord>, images: readonly RuntimeImage[], inUse: ReadonlySet<string>, now: number): Map<string, ImageRecord> {
  const out = new Map<string, ImageRecord>();
  for (const image of images) {
    const prev = records.get(image.id);
    const rec: ImageRecord = prev ? { ...prev } : { firstDetected: now, lastUsed: 0, size: image.size, pinned: image.pinned, tags: image.tags };
    if (inUse.has(image.id)) rec.lastUsed = now;
    rec.size = image.size;
    rec.pinned = image.pinned;
    rec.tags = image.tags;
    out.set(image.id, rec);
  }
  return out;
}

/**
 * GarbageCollect's amount: nothing while usage is below the high threshold; above it, enough to
 * bring usage down to the low threshold. Usage is 100 - available × 100 / capacity, as the kubelet
 * computes it (integer division).
 */
export function amountToFree(fs: { capacityBytes: number; availableBytes: number }, highPercent: number, lowPercent: number): { usagePercent: number; bytes: number } {
  const { capacityBytes, availableBytes } = fs;
  if (capacityBytes <= 0) return { usagePercent: 0, bytes: 0 };
  const available = Math.min(availableBytes, capacityBytes);
  const usagePercent = 100 - Math.floor((available * 100) / capacityBytes);
  if (usagePercent < highPercent) return { usagePercent, bytes: 0 };
  return { usagePercent, bytes: Math.max(Math.floor((capacityBytes * (100 - lowPercent)) / 100) - available, 0) };
}

export interface FreePlan {
  /** Image IDs to remove, in order (least recently used first). */
  remove: string[];
  freed: number;
  /** Why the others were kept (their first tag, or ID): the explanation when freed < wanted. */
  kept: { inUse: string[]; pinned: string[]; tooYoung: string[] };
}

const nameOf = (id: string, rec: ImageRecord) => rec.tags[0] ?? id;

/**
 * freeSpace: images not in use and not pinned, oldest last use first (then oldest first
 * detection), each removed once it has been known for imageMinimumGCAge, until `bytesToFree`
 * is reached.
 */
export function planFreeSpace(records: ReadonlyMap<string, ImageRecord>, inUse: ReadonlySet<string>, bytesToFree: number, now: number, minAgeMs: number): FreePlan {
  const plan: FreePlan = { remove: [], freed: 0, kept: { inUse: [], pinned: [], tooYoung: [] } };
  const candidates: [string, ImageRecord][] = [];
  for (const [id, rec] of records) {
    if (inUse.has(id)) plan.kept.inUse.push(nameOf(id, rec));
    else if (rec.pinned) plan.kept.pinned.push(nameOf(id, rec));
    else candidates.push([id, rec]);
  }
  candidates.sort(([ia, a], [ib, b]) => a.lastUsed - b.lastUsed || a.firstDetected - b.firstDetected || ia.localeCompare(ib));
  for (const [id, rec] of candidates) {
    if (plan.freed >= bytesToFree) break;
    if (now - rec.firstDetected < minAgeMs) {
      plan.kept.tooYoung.push(nameOf(id, rec));
      continue;
    }
    plan.remove.push(id);
    plan.freed += rec.size;
  }
  return plan;
}

/**
 * imageMaximumGCAge: unused images whose last use (or first detection, if never used) is older
 * than maxAge are removed whatever the disk usage; 0 turns this off.
 */
export function planMaxAge(records: ReadonlyMap<string, ImageRecord>, inUse: ReadonlySet<string>, now: number, maxAgeMs: number): string[] {
  if (maxAgeMs <= 0) return [];
  const out: string[] = [];
  for (const [id, rec] of records) {
    if (inUse.has(id) || rec.pinned) continue;
    if (now - Math.max(rec.lastUsed, rec.firstDetected) > maxAgeMs) out.push(id);
  }
  return out.sort();
}

/** The kubelet's error, with what bunlet adds: which images were kept, and why. */
export function shortfallMessage(wanted: number, plan: FreePlan): string {
  const parts = [
    plan.kept.inUse.length > 0 ? `in use: ${plan.kept.inUse.join(", ")}` : "",
    plan.kept.pinned.length > 0 ? `pinned (sandbox): ${plan.kept.pinned.join(", ")}` : "",
    plan.kept.tooYoung.length > 0 ? `younger than imageMinimumGCAge: ${plan.kept.tooYoung.join(", ")}` : "",
  ].filter((p) => p !== "");
  const why = parts.length > 0 ? `; kept ${parts.join("; ")}` : "; no other images";
  return `Failed to garbage collect required amount of images. Attempted to free ${wanted} bytes, but only found ${plan.freed} bytes eligible to free${why}`;
}
