// The local busybox image under another name with a changed image config (a USER, as a Dockerfile's
// `USER` line sets it), imported into a test containerd: for tests of what the runtime does with
// the image's user. Made from busybox.tar without network; nothing is left on disk.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUSYBOX_TAR, runCommand } from "./images.ts";

/** Imports busybox as `tag` whose config says `User: user` ("1234", "1234:1234" or a name). */
export async function importBusyboxWithUser(socketPath: string, tag: string, user: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bunlet-image-variant-"));
  try {
    await runCommand(["tar", "-xf", BUSYBOX_TAR, "-C", dir]);
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { Config: string; RepoTags: string[]; Layers: string[] }[];
    const entry = manifest[0]!;
    const config = JSON.parse(readFileSync(join(dir, entry.Config), "utf8")) as { config: Record<string, unknown> };
    config.config.User = user;
    const text = JSON.stringify(config);
    const name = `${createHash("sha256").update(text).digest("hex")}.json`;
    rmSync(join(dir, entry.Config));
    writeFileSync(join(dir, name), text);
    writeFileSync(join(dir, "manifest.json"), JSON.stringify([{ ...entry, Config: name, RepoTags: [tag] }]));
    const tar = join(dir, "image.tar");
    await runCommand(["tar", "-cf", tar, "-C", dir, "manifest.json", name, ...entry.Layers.map((l) => l.split("/")[0]!)]);
    await runCommand(["ctr", "--address", socketPath, "-n", "k8s.io", "images", "import", tar]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
