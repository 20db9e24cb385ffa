/** `crictl images`: the images, one row per repo tag, as crictl lists them. */
import type { Image } from "../../cri/index.ts";
import { humanSize, protoJson, table, truncatedId } from "./format.ts";
import { outputFormat, printStructured, type Command } from "./command.ts";

/** crictl's normalizeRepoDigest: the name and digest of the first repo digest. */
export function normalizeRepoDigest(repoDigests: readonly string[]): [string, string] {
  if (repoDigests.length === 0) return ["<none>", "<none>"];
  const pair = repoDigests[0].split("@");
  return pair.length === 2 ? [pair[0], pair[1]] : ["errorName", "errorRepoDigest"];
}

/** crictl's normalizeRepoTagPair: [repository, tag] per repo tag, <none> for untagged images. */
export function normalizeRepoTagPair(repoTags: readonly string[], imageName: string): [string, string][] {
  if (repoTags.length === 0) return [[imageName, "<none>"]];
  return repoTags.map((tag) => {
    const idx = tag.lastIndexOf(":");
    if (idx < 0) return ["errorRepoTag", "errorRepoTag"];
    const name = tag.slice(0, idx);
    return [name === "<none>" ? imageName : name, tag.slice(idx + 1)];
  });
}

const sortKey = (i: Image) => i.repoTags[0] ?? i.repoDigests[0] ?? i.id;

export const imagesCommand: Command = {
  name: "images",
  usage: "List images",
  argsUsage: "[REPOSITORY[:TAG]]",
  flags: [
    { name: "verbose", alias: "v", kind: "bool", usage: "Show verbose info for images" },
    { name: "quiet", alias: "q", kind: "bool", usage: "Only show image IDs" },
    { name: "output", alias: "o", kind: "string", usage: "Output format, One of: json|yaml|table" },
    { name: "digests", kind: "bool", usage: "Show digests" },
    { name: "no-trunc", kind: "bool", usage: "Show output without truncating the ID" },
    { name: "pinned", kind: "bool", usage: "Show whether the image is pinned or not" },
  ],
  async run(ctx, parsed) {
    const format = outputFormat(parsed, ["json", "yaml", "table"]);
    const name = parsed.args[0];
    const { images } = await ctx.cri.image.listImages({ filter: name ? { image: { image: name } } : undefined }, { signal: ctx.signal });
    const sorted = [...images].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
    if (format !== "table") {
      printStructured(ctx, format, protoJson("ListImagesResponse", { images: sorted }));
      return 0;
    }
    const quiet = parsed.bools.has("quiet");
    const verbose = parsed.bools.has("verbose");
    const digests = parsed.bools.has("digests");
    const pinned = parsed.bools.has("pinned");
    const noTrunc = parsed.bools.has("no-trunc");
    const rows: string[][] = [];
    if (!verbose && !quiet) rows.push(["IMAGE", "TAG", ...(digests ? ["DIGEST"] : []), "IMAGE ID", "SIZE", ...(pinned ? ["PINNED"] : [])]);
    for (const image of sorted) {
      if (quiet) {
        ctx.out(`${image.id}\n`);
        continue;
      }
      if (verbose) {
        let block = `ID: ${image.id}\n`;
        for (const tag of image.repoTags) block += `RepoTags: ${tag}\n`;
        for (const digest of image.repoDigests) block += `RepoDigests: ${digest}\n`;
        if (image.size !== 0n) block += `Size: ${image.size}\n`;
        if (image.username) block += `Username: ${image.username}\n`;
        ctx.out(`${block}\n`);
        continue;
      }
      const [imageName, repoDigest] = normalizeRepoDigest(image.repoDigests);
      const id = noTrunc ? image.id : truncatedId(image.id, "sha256:");
      const digest = noTrunc ? repoDigest : truncatedId(repoDigest, "sha256:");
      const size = humanSize(Number(image.size), 3);
      for (const [repo, tag] of normalizeRepoTagPair(image.repoTags, imageName)) {
        rows.push([repo, tag, ...(digests ? [digest] : []), id, size, ...(pinned ? [String(image.pinned)] : [])]);
      }
    }
    if (rows.length > 0) ctx.out(table(rows));
    return 0;
  },
};
