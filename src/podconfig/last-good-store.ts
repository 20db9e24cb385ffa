/**
 * Beyond the kubelet: the last good version of each static pod manifest, kept on disk under
 * `<root-dir>/static-pods/` so that it outlives a restart. A bunlet restarted while a manifest is
 * broken then keeps running that manifest's last good pod (same content, same UID, so it is
 * adopted, not killed as an orphan) instead of only doing so within one process.
 *
 * One JSON file per manifest path: `<basename>-<hash of the path>.json` holding the path and the
 * manifest's bytes as they were, so an operator can read what bunlet falls back to. Entries of
 * manifests that are gone are pruned, so a deleted file still removes its pod for good.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";

export interface LastGoodStore {
  /** The saved bytes of the manifest at `source`, if any. */
  load(source: string): Promise<Buffer | undefined>;
  /** Saves (atomically) the bytes of a manifest that decoded; a no-op when they are already saved. */
  save(source: string, bytes: Buffer): Promise<void>;
  /** Removes every entry whose manifest is not in `present`. */
  prune(present: ReadonlySet<string>): Promise<void>;
}

interface Entry {
  source: string;
  manifest: string;
  /** "utf8" or "base64" (a manifest that is not valid UTF-8 is kept exactly). */
  encoding: "utf8" | "base64";
}

function entryName(source: string): string {
  const hash = createHash("sha256").update(source).digest("hex").slice(0, 16);
  const base = basename(source).replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100);
  return `${base}-${hash}.json`;
}

function encode(source: string, bytes: Buffer): Entry {
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? { source, manifest: text, encoding: "utf8" } : { source, manifest: bytes.toString("base64"), encoding: "base64" };
}

function decode(entry: Entry): Buffer {
  return Buffer.from(entry.manifest, entry.encoding === "base64" ? "base64" : "utf8");
}

function isEntry(x: unknown): x is Entry {
  const e = x as Entry;
  return typeof e === "object" && e !== null && typeof e.source === "string" && typeof e.manifest === "string";
}

/** The store in a directory (created on the first save). */
export function createLastGoodStore(dir: string): LastGoodStore {
  /** What is on disk, by source, as far as this process knows (saves skip identical bytes). */
  const saved = new Map<string, Buffer>();

  const readEntry = async (file: string): Promise<Entry | undefined> => {
    try {
      const parsed: unknown = JSON.parse(await readFile(join(dir, file), "utf8"));
      return isEntry(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  };

  return {
    async load(source) {
      const entry = await readEntry(entryName(source));
      if (!entry || entry.source !== source) return undefined;
      const bytes = decode(entry);
      saved.set(source, bytes);
      return bytes;
    },

    async save(source, bytes) {
      if (saved.get(source)?.equals(bytes)) return;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = join(dir, entryName(source));
      const tmp = `${file}.tmp`;
      await writeFile(tmp, JSON.stringify(encode(source, bytes)), { mode: 0o600 });
      await rename(tmp, file);
      saved.set(source, Buffer.from(bytes));
    },

    async prune(present) {
      let files: string[];
      try {
        files = await readdir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
        throw err;
      }
      for (const file of files) {
        if (!file.endsWith(".json") && !file.endsWith(".json.tmp")) continue;
        const entry = file.endsWith(".tmp") ? undefined : await readEntry(file);
        if (entry && present.has(entry.source) && entryName(entry.source) === file) continue;
        await rm(join(dir, file), { force: true });
        if (entry) saved.delete(entry.source);
      }
    },
  };
}
