/** --help text, built from the flag tables so it cannot drift from what the parser accepts. */
import { allFlagDefs, flagDefs } from "./flags.ts";

const intro = `bunlet runs Kubernetes pods on this machine through containerd's CRI, like the kubelet.
Pods come from static manifests (--pod-manifest-path) and/or a manifest URL (--manifest-url).
Flags are spelled as the kubelet's; flags override fields of the --config file.

Usage:
  bunlet [flags]
`;

/** Names joined by ", " and wrapped at `width` columns, each line indented. */
function wrap(names: string[], width: number, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const name of names) {
    const next = line === "" ? name : `${line}, ${name}`;
    if (indent.length + next.length > width && line !== "") {
      lines.push(`${indent}${line},`);
      line = name;
    } else line = next;
  }
  if (line !== "") lines.push(`${indent}${line}`);
  return lines.join("\n");
}

export function helpText(): string {
  const rows = flagDefs.map((d) => {
    const names = d.short ? `-${d.short}, --${d.name}` : `    --${d.name}`;
    return { group: d.group, left: d.type ? `${names} ${d.type}` : names, d };
  });
  const width = Math.max(...rows.map((r) => r.left.length)) + 3;
  const groups = [...new Set(rows.map((r) => r.group))];
  const sections = groups.map((g) => {
    const lines = rows
      .filter((r) => r.group === g)
      .map(({ left, d }) => {
        const def = d.defaultText ? ` (default ${d.defaultText})` : "";
        const field = d.field ? ` [config: ${d.field}]` : "";
        return `  ${left.padEnd(width)}${d.usage}${def}${field}`;
      });
    return `${g}:\n${lines.join("\n")}`;
  });
  const compat = allFlagDefs.filter((d) => d.compat).map((d) => `--${d.name}`);
  sections.push(
    "Kubelet flags accepted so kubelet command lines work; their values are checked, bunlet does not act on them,\n" +
      "and they are listed in one line at start:\n" +
      wrap(compat, 100, "  "),
  );
  return `${intro}\n${sections.join("\n\n")}`;
}
