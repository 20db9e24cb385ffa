/**
 * The image manager (the kubelet's realImageGCManager): every imageGCPeriod it reads the image
 * filesystem's usage and, above imageGCHighThresholdPercent, removes unused images down to
 * imageGCLowThresholdPercent; with imageMaximumGCAge it also removes images unused that long.
 * The eviction manager calls deleteUnusedImages to reclaim disk before it evicts a pod.
 *
 * An image is in use when any container (running or exited) refers to it, or mounts it as an image
 * volume (the runtime's status of the container names the images it mounts). The sandbox image is
 * never removed: containerd 1.7 and later pin it, and for 1.6, which does not, bunlet asks the
 * runtime which image it uses for sandboxes (CRI Status, verbose) and keeps that one too.
 */
import { isNotFound, type CriClient } from "../cri/index.ts";
import { runEvery, type Clock, type Logger } from "../lib/index.ts";
import { amountToFree, detectImages, planFreeSpace, planMaxAge, shortfallMessage, type ImageRecord, type RuntimeImage } from "./policy.ts";

export interface ImageGCPolicy {
  highThresholdPercent: number;
  lowThresholdPercent: number;
  minAgeMs: number;
  maxAgeMs: number;
  periodMs: number;
}

export interface ImageGCDeps {
  cri: Pick<CriClient, "runtime" | "image">;
  /** The image filesystem's capacity and available bytes (CRI ImageFsInfo's mountpoint, statfs). */
  imageFs(signal: AbortSignal): Promise<{ capacityBytes: number; availableBytes: number } | undefined>;
  /** The image the runtime runs sandboxes from, if it says. */
  sandboxImage(signal: AbortSignal): Promise<string | undefined>;
  clock: Clock;
  log: Logger;
}

export class ImageGCManager {
  readonly #deps: ImageGCDeps;
  readonly #policy: ImageGCPolicy;
  #records = new Map<string, ImageRecord>();
  #sandboxImage: string | undefined;

  constructor(deps: ImageGCDeps, policy: ImageGCPolicy) {
    this.#deps = deps;
    this.#policy = policy;
  }

  /** Collects every period (the first time one period after start) until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, log } = this.#deps;
    // Images present at start are first detected now, so imageMinimumGCAge counts from here.
    await this.#detect(signal).catch((err: unknown) => {
      if (!signal.aborted) log.warn("Failed to list images at start; image GC detects them at its first run", { err });
    });
    let failedBefore = false;
    await runEvery(
      clock,
      () => this.#policy.periodMs,
      signal,
      async () => {
        await this.garbageCollect(signal);
        failedBefore = false;
      },
      (err) => {
        if (signal.aborted) return;
        // The kubelet's two lines: a first failure may only mean stats were not ready yet.
        if (failedBefore) log.error("Image garbage collection failed multiple times in a row", { err });
        else log.error("Image garbage collection failed once. Stats initialization may not have completed yet", { err });
        failedBefore = true;
      },
    );
  }

  /** GarbageCollect: above the high threshold, free down to the low one; then imageMaximumGCAge. */
  async garbageCollect(signal: AbortSignal): Promise<void> {
    const { log, clock } = this.#deps;
    const { highThresholdPercent, lowThresholdPercent } = this.#policy;
    const inUse = await this.#detect(signal);
    const aged = planMaxAge(this.#records, inUse, clock.now(), this.#policy.maxAgeMs);
    for (const id of aged) await this.#remove(id, "age", signal);
    if (highThresholdPercent >= 100) return;
    const fs = await this.#deps.imageFs(signal);
    if (!fs) throw new Error("the runtime reports no image filesystem");
    const { usagePercent, bytes } = amountToFree(fs, highThresholdPercent, lowThresholdPercent);
    if (bytes <= 0) return;
    log.info("Disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold", {
      usage: usagePercent,
      highThreshold: highThresholdPercent,
      amountToFree: bytes,
      lowThreshold: lowThresholdPercent,
    });
    const freed = await this.#freeSpace(bytes, inUse, signal);
    if (freed.freed < bytes) throw new Error(freed.message);
  }

  /**
   * DeleteUnusedImages (the eviction manager's reclaim): removes every unused image old enough
   * and returns the bytes freed.
   */
  async deleteUnusedImages(signal: AbortSignal): Promise<number> {
    const inUse = await this.#detect(signal);
    return (await this.#freeSpace(Number.MAX_SAFE_INTEGER, inUse, signal)).freed;
  }

  async #freeSpace(bytes: number, inUse: ReadonlySet<string>, signal: AbortSignal): Promise<{ freed: number; message: string }> {
    const plan = planFreeSpace(this.#records, inUse, bytes, this.#deps.clock.now(), this.#policy.minAgeMs);
    let freed = 0;
    for (const id of plan.remove) {
      const size = this.#records.get(id)?.size ?? 0;
      if (await this.#remove(id, "space", signal)) freed += size;
    }
    return { freed, message: shortfallMessage(bytes, { ...plan, freed }) };
  }

  async #remove(id: string, reason: "space" | "age", signal: AbortSignal): Promise<boolean> {
    const { cri, log } = this.#deps;
    const rec = this.#records.get(id);
    log.info(reason === "age" ? "Removing image with age exceeding imageMaximumGCAge" : "Removing image to free bytes", {
      imageID: id,
      size: rec?.size ?? 0,
      ...(rec?.tags[0] ? { image: rec.tags[0] } : {}),
    });
    try {
      await cri.image.removeImage({ image: { image: id } }, { signal });
    } catch (err) {
      if (!isNotFound(err)) {
        log.error("Failed to remove image; image GC retries at its next run", { err, imageID: id });
        return false;
      }
    }
    this.#records.delete(id);
    return true;
  }

  /** handleImageVolumes: the images the containers mount as image volumes, from their CRI status. */
  async #mountedImages(containerIds: string[], signal: AbortSignal): Promise<string[]> {
    const { cri } = this.#deps;
    const statuses = await Promise.all(
      containerIds.map((containerId) =>
        cri.runtime.containerStatus({ containerId }, { signal }).catch((err) => {
          // Removed between the list and now: it mounts nothing any more.
          if (isNotFound(err)) return undefined;
          throw err;
        }),
      ),
    );
    return statuses.flatMap((s) => (s?.status?.mounts ?? []).map((m) => m.image?.image ?? "").filter((ref) => ref !== ""));
  }

  /** detectImages; returns the IDs of images in use. */
  async #detect(signal: AbortSignal): Promise<Set<string>> {
    const { cri, clock } = this.#deps;
    const [{ images }, { containers }] = await Promise.all([cri.image.listImages({}, { signal }), cri.runtime.listContainers({}, { signal })]);
    this.#sandboxImage ??= await this.#deps.sandboxImage(signal).catch(() => undefined);
    const keep = new Set(this.#sandboxImage ? [this.#sandboxImage] : []);
    const runtimeImages: RuntimeImage[] = images.map((i) => ({ id: i.id, size: Number(i.size), tags: i.repoTags, pinned: i.pinned || i.repoTags.some((t) => keep.has(t)) }));
    const byRef = new Map<string, string>();
    for (const i of images) for (const ref of [i.id, ...i.repoTags, ...i.repoDigests]) byRef.set(ref, i.id);
    const inUse = new Set<string>();
    for (const c of containers) {
      const id = byRef.get(c.imageRef) ?? byRef.get(c.image?.image ?? "");
      if (id) inUse.add(id);
    }
    for (const ref of await this.#mountedImages(containers.map((c) => c.id), signal)) {
      const id = byRef.get(ref);
      if (id) inUse.add(id);
    }
    this.#records = detectImages(this.#records, runtimeImages, inUse, clock.now());
    return inUse;
  }
}
