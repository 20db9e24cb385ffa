/**
 * What containerd's CRI Status (verbose) tells about its own config: the info map carries the CRI
 * plugin's config as JSON, with the sandbox (pause) image in it, which image GC must spare.
 */

/** The sandbox image from containerd's Status info; undefined when absent or not readable. */
export function sandboxImageFromStatusInfo(info: Record<string, string>): string | undefined {
  try {
    const image = (JSON.parse(info.config ?? "{}") as { sandboxImage?: unknown }).sandboxImage;
    return typeof image === "string" && image !== "" ? image : undefined;
  } catch {
    return undefined;
  }
}
