/**
 * Image preloading, as k3s does from agent/images/: every `*.tar` in `<root-dir>/images` is
 * imported into containerd's k8s.io namespace once containerd answers, so air-gapped nodes (and
 * bunlet's own demo and tests) run pods without a registry. A stamp per tarball (size + mtime)
 * skips unchanged files on the next start. A tarball that fails to import is logged and skipped:
 * the pods that need it will report ErrImagePull, nothing else is held up.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../lib/index.ts";

export interface PreloadResult {
  imported: string[];
  skipped: string[];
  failed: string[];
}

export function preloadImages(opts: { dir: string; socketPath: string; stampFile: string; log: Logger; ctr?: string }): PreloadResult {
  const result: PreloadResult = { imported: [], skipped: [], failed: [] };
  if (!existsSync(opts.dir)) return result;
  const stamps: Record<string, string> = existsSync(opts.stampFile) ? safeJson(readFileSync(opts.stampFile, "utf8")) : {};
  const files = readdirSync(opts.dir)
    .filter((f) => f.endsWith(".tar") && !f.startsWith("."))
    .sort();
  for (const name of files) {
    const file = join(opts.dir, name);
    const st = statSync(file);
    if (!st.isFile()) continue;
    const stamp = `${st.size}:${st.mtimeMs}`;
    if (stamps[name] === stamp) {
      result.skipped.push(name);
      continue;
    }
    const ctr = opts.ctr ?? "ctr";
    const run = spawnSync(ctr, ["--address", opts.socketPath, "-n", "k8s.io", "images", "import", file], { encoding: "utf8" });
    if (run.status === 0) {
      stamps[name] = stamp;
      result.imported.push(name);
      opts.log.info("preloaded image tarball", { file, images: run.stdout.trim().split("\n").filter(Boolean).length });
    } else {
      result.failed.push(name);
      opts.log.error("could not preload image tarball; pods that need it will fail to pull", {
        file,
        err: (run.stderr || run.error?.message || `exit ${run.status}`).trim(),
      });
    }
  }
  writeFileSync(opts.stampFile, JSON.stringify(stamps));
  return result;
}

function safeJson(text: string): Record<string, string> {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}
