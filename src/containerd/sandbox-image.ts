/**
 * The sandbox (pause) image on an air-gapped node. bunlet's bundled pause tarball
 * (`<root-dir>/images/pause.tar`) is built as PAUSE_IMAGE; when `--pod-infra-container-image`
 * names another image and containerd has no image of that name, the bundled one is tagged under
 * it, so pods start without a registry. An image of that name already there (pulled, or preloaded
 * from a tarball of the user's) is left alone; so is a node without the bundled image, whose
 * containerd then pulls the sandbox image on the first pod.
 */
import { spawnSync } from "node:child_process";
import type { Logger } from "../lib/index.ts";

export type SandboxImageOutcome = "bundled" | "present" | "tagged" | "missing" | "failed";

/**
 * containerd's image names are fully qualified: `pause` is `docker.io/library/pause:latest`,
 * `example.com/pause:3.10` stays as it is (docker's reference normalisation).
 */
export function normalizeImageName(image: string): string {
  const slash = image.indexOf("/");
  const first = slash < 0 ? "" : image.slice(0, slash);
  const hasDomain = first !== "" && (first.includes(".") || first.includes(":") || first === "localhost");
  let name = hasDomain ? image : slash < 0 ? `docker.io/library/${image}` : `docker.io/${image}`;
  const last = name.slice(name.lastIndexOf("/") + 1);
  if (!last.includes(":") && !name.includes("@")) name += ":latest";
  return name;
}

export function ensureSandboxImage(opts: {
  socketPath: string;
  /** The sandbox image containerd is configured with. */
  sandboxImage: string;
  /** The name the bundled pause tarball carries (PAUSE_IMAGE). */
  bundledImage: string;
  log: Logger;
  ctr?: string;
}): SandboxImageOutcome {
  const wanted = normalizeImageName(opts.sandboxImage);
  if (wanted === opts.bundledImage) return "bundled";
  const ctr = (args: string[]) =>
    spawnSync(opts.ctr ?? "ctr", ["--address", opts.socketPath, "-n", "k8s.io", "images", ...args], { encoding: "utf8" });
  const list = ctr(["ls", "-q"]);
  if (list.status !== 0) {
    opts.log.warn("could not list images to check the sandbox image; containerd pulls it when a pod needs it", {
      sandboxImage: wanted,
      err: (list.stderr || list.error?.message || `exit ${list.status}`).trim(),
    });
    return "failed";
  }
  const names = new Set(list.stdout.split("\n").map((l) => l.trim()));
  if (names.has(wanted)) return "present";
  if (!names.has(opts.bundledImage)) {
    opts.log.info("sandbox image not on the node and no bundled pause image to stand in; containerd pulls it when a pod needs it", {
      sandboxImage: wanted,
    });
    return "missing";
  }
  const tag = ctr(["tag", opts.bundledImage, wanted]);
  if (tag.status !== 0) {
    opts.log.warn("could not tag the bundled pause image as the sandbox image; containerd pulls it when a pod needs it", {
      sandboxImage: wanted,
      bundled: opts.bundledImage,
      err: (tag.stderr || tag.error?.message || `exit ${tag.status}`).trim(),
    });
    return "failed";
  }
  opts.log.info("the bundled pause image stands in for the sandbox image", { sandboxImage: wanted, bundled: opts.bundledImage });
  return "tagged";
}
