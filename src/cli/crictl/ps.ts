/** `crictl ps`: the containers (running ones unless -a), newest first, as crictl lists them. */
import { ContainerState, labels as criLabels, type Container } from "../../cri/index.ts";
import { UsageError } from "./args.ts";
import { ago, protoJson, table, truncatedId } from "./format.ts";
import { labelSelector, mapBlock, matches, newestFirst, outputFormat, printStructured, type Command, type CrictlContext } from "./command.ts";
import type { Parsed } from "./args.ts";

const stateNames: Record<string, ContainerState> = {
  created: ContainerState.CONTAINER_CREATED,
  running: ContainerState.CONTAINER_RUNNING,
  exited: ContainerState.CONTAINER_EXITED,
  unknown: ContainerState.CONTAINER_UNKNOWN,
};

function containerState(state: ContainerState): string {
  switch (state) {
    case ContainerState.CONTAINER_CREATED:
      return "Created";
    case ContainerState.CONTAINER_RUNNING:
      return "Running";
    case ContainerState.CONTAINER_EXITED:
      return "Exited";
    default:
      return "Unknown";
  }
}

/** The image ID both references resolve to, so --image matches by image, not by spelling. */
async function imageId(ctx: CrictlContext, ref: string): Promise<string | undefined> {
  const res = await ctx.cri.image.imageStatus({ image: { image: ref } }, { signal: ctx.signal });
  return res.image?.id;
}

const isDigest = (s: string) => /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-fA-F0-9]{32,}$/.test(s);

export const psCommand: Command = {
  name: "ps",
  usage: "List containers",
  argsUsage: "",
  flags: [
    { name: "verbose", alias: "v", kind: "bool", usage: "Show verbose information for containers" },
    { name: "id", kind: "string", usage: "Filter by container id" },
    { name: "name", kind: "string", usage: "Filter by container name regular expression pattern" },
    { name: "pod", alias: "p", kind: "string", usage: "Filter by pod id" },
    { name: "image", kind: "string", usage: "Filter by container image" },
    { name: "state", alias: "s", kind: "string", usage: "Filter by container state" },
    { name: "label", kind: "strings", usage: "Filter by key=value label" },
    { name: "quiet", alias: "q", kind: "bool", usage: "Only display container IDs" },
    { name: "output", alias: "o", kind: "string", usage: "Output format, One of: json|yaml|table" },
    { name: "all", alias: "a", kind: "bool", usage: "Show all containers" },
    { name: "latest", alias: "l", kind: "bool", usage: "Show the most recently created container (includes all states)" },
    { name: "last", alias: "n", kind: "int", usage: "Show last n recently created containers (includes all states). Set 0 for unlimited." },
    { name: "no-trunc", kind: "bool", usage: "Show output without truncating the ID" },
    { name: "resolve-image-path", alias: "r", kind: "bool", usage: "Show image path instead of image id" },
    { name: "namespace", kind: "string", usage: "Filter by pod namespace regular expression pattern" },
  ],
  async run(ctx, parsed) {
    if (parsed.args.length > 0) throw new UsageError(`ps takes no arguments, found ${JSON.stringify(parsed.args[0])}`);
    const format = outputFormat(parsed, ["json", "yaml", "table"]);
    const list = await listContainers(ctx, parsed);
    if (format !== "table") {
      printStructured(ctx, format, protoJson("ListContainersResponse", { containers: list }));
      return 0;
    }
    if (parsed.bools.has("quiet")) {
      for (const c of list) ctx.out(`${c.id}\n`);
      return 0;
    }
    const now = ctx.now();
    if (parsed.bools.has("verbose")) {
      for (const c of list) {
        let block = `ID: ${c.id}\nPodID: ${c.podSandboxId}\nNamespace: ${c.labels[criLabels.KubernetesPodNamespaceLabel] ?? ""}\n`;
        if (c.metadata) {
          if (c.metadata.name) block += `Name: ${c.metadata.name}\n`;
          block += `Attempt: ${c.metadata.attempt}\n`;
        }
        block += `State: ${containerState(c.state)}\n`;
        if (c.image) block += `Image: ${c.image.image}\n`;
        block += `Created: ${ago(now, c.createdAt)}\n`;
        block += mapBlock("Labels", c.labels) + mapBlock("Annotations", c.annotations) + "\n";
        ctx.out(block);
      }
      return 0;
    }
    const noTrunc = parsed.bools.has("no-trunc");
    const rows = [["CONTAINER", "IMAGE", "CREATED", "STATE", "NAME", "ATTEMPT", "POD ID", "POD", "NAMESPACE"]];
    for (const c of list) {
      let image = c.image?.image ?? "";
      if (!noTrunc && isDigest(image)) image = truncatedId(image, `${image.split(":")[0]}:`);
      if (parsed.bools.has("resolve-image-path")) {
        const res = await ctx.cri.image.imageStatus({ image: { image: c.image?.image ?? "" } }, { signal: ctx.signal });
        image = res.image?.repoTags[0] ?? image;
      }
      rows.push([
        noTrunc ? c.id : truncatedId(c.id),
        image,
        ago(now, c.createdAt),
        containerState(c.state),
        c.metadata?.name ?? "",
        String(c.metadata?.attempt ?? 0),
        noTrunc ? c.podSandboxId : truncatedId(c.podSandboxId),
        c.labels[criLabels.KubernetesPodNameLabel] ?? "",
        c.labels[criLabels.KubernetesPodNamespaceLabel] ?? "",
      ]);
    }
    ctx.out(table(rows));
    return 0;
  },
};

/** ListContainers with crictl's filters: running only unless --all/--state/--latest/--last. */
export async function listContainers(ctx: CrictlContext, parsed: Parsed): Promise<Container[]> {
  const state = parsed.strings.get("state");
  let stateFilter: ContainerState | undefined;
  if (state !== undefined && state !== "") {
    stateFilter = stateNames[state.toLowerCase()];
    if (stateFilter === undefined) throw new UsageError("--state should be one of created, running, exited or unknown");
  } else if (!parsed.bools.has("all")) stateFilter = ContainerState.CONTAINER_RUNNING;
  if (parsed.bools.has("latest") || (parsed.ints.get("last") ?? 0) > 0) stateFilter = undefined;
  const { containers } = await ctx.cri.runtime.listContainers(
    {
      filter: {
        id: parsed.strings.get("id") ?? "",
        podSandboxId: parsed.strings.get("pod") ?? "",
        state: stateFilter === undefined ? undefined : { state: stateFilter },
        labelSelector: labelSelector(parsed) ?? {},
      },
    },
    { signal: ctx.signal },
  );
  let kept = containers.filter(
    (c) =>
      matches(parsed.strings.get("name"), c.metadata?.name ?? "") &&
      matches(parsed.strings.get("namespace"), c.labels[criLabels.KubernetesPodNamespaceLabel] ?? ""),
  );
  const image = parsed.strings.get("image");
  if (image) {
    const wanted = await imageId(ctx, image);
    const ids = await Promise.all(kept.map((c) => imageId(ctx, c.image?.image ?? "")));
    kept = wanted === undefined ? [] : kept.filter((_, i) => ids[i] === wanted);
  }
  return newestFirst(kept, parsed);
}

