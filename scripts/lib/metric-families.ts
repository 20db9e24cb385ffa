/**
 * Metric families of a Prometheus text exposition (name → type and label names) and the diff of
 * two agents' families, for scripts/metrics-parity.ts: which of the kubelet's families bunlet
 * lacks, which it has with another type or other labels, and which are bunlet's own. A histogram's
 * or summary's labels are its series' without `le`/`quantile`.
 */

export interface Family {
  type: string;
  labels: string[];
  /** The HELP text as exposed (component-base's `[ALPHA]`/`[STABLE]` prefix included), unescaped. */
  help?: string;
}

export function parseFamilies(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const labelSets = new Map<string, Set<string>>();
  const helps = new Map<string, string>();
  for (const line of text.split("\n")) {
    const help = /^# HELP (\S+) ?(.*)$/.exec(line);
    if (help) {
      helps.set(help[1]!, unescapeHelp(help[2]!));
      continue;
    }
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      families.set(type[1]!, { type: type[2]!, labels: [] });
      labelSets.set(type[1]!, new Set());
      continue;
    }
    if (line.startsWith("#") || line.trim() === "") continue;
    const series = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?/.exec(line);
    if (!series) continue;
    const name = series[1]!;
    const family = [name, name.replace(/_(bucket|sum|count|total|created)$/, "")].find((n) => families.has(n));
    if (!family) continue;
    for (const m of (series[3] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) if (m[1] !== "le" && m[1] !== "quantile") labelSets.get(family)!.add(m[1]!);
  }
  for (const [name, f] of families) {
    f.labels = [...labelSets.get(name)!].sort();
    const help = helps.get(name);
    if (help !== undefined) f.help = help;
  }
  return families;
}

export interface FamilyDiff {
  missing: string[];
  different: string[];
  extra: string[];
}

const describe = (name: string, f: Family) => `${name} ${f.type}{${f.labels.join(",")}}`;
const escapeHelp = (help: string) => help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const unescapeHelp = (help: string) => help.replace(/\\(\\|n)/g, (_, c: string) => (c === "n" ? "\n" : "\\"));

/**
 * The checked-in list of the kubelet's families (docs/metrics-kubelet-families.txt): per endpoint
 * a `## <path>` heading, then one `name type {labels} help` line per family, sorted by name.
 */
export function formatReference(endpoints: Map<string, Map<string, Family>>): string {
  const lines: string[] = [];
  for (const [path, families] of endpoints) {
    lines.push(`## ${path}`);
    for (const [name, f] of [...families].sort(([a], [b]) => a.localeCompare(b))) lines.push(`${describe(name, f)} ${escapeHelp(f.help ?? "")}`.trimEnd());
    lines.push("");
  }
  return lines.join("\n");
}

export function parseReference(text: string): Map<string, Map<string, Family>> {
  const endpoints = new Map<string, Map<string, Family>>();
  let current: Map<string, Family> | undefined;
  for (const line of text.split("\n")) {
    const heading = /^## (\S+)/.exec(line);
    if (heading) {
      current = new Map();
      endpoints.set(heading[1]!, current);
      continue;
    }
    const family = /^(\S+) (\S+)\{([^}]*)\}(?: (.*))?$/.exec(line);
    if (!family || !current) continue;
    current.set(family[1]!, { type: family[2]!, labels: family[3] ? family[3].split(",") : [], help: unescapeHelp(family[4] ?? "") });
  }
  return endpoints;
}

/** `upstream`'s families bunlet lacks or has differently, and bunlet's that upstream does not have. */
export function diffFamilies(upstream: Map<string, Family>, bunlet: Map<string, Family>): FamilyDiff {
  const missing: string[] = [];
  const different: string[] = [];
  for (const [name, f] of [...upstream].sort(([a], [b]) => a.localeCompare(b))) {
    const ours = bunlet.get(name);
    if (!ours) missing.push(describe(name, f));
    // A family without series has no labels to compare.
    else if (ours.type !== f.type || (f.labels.length > 0 && ours.labels.length > 0 && ours.labels.join() !== f.labels.join())) {
      different.push(`${describe(name, f)} ≠ ${describe(name, ours)}`);
    } else if (f.help !== undefined && ours.help !== undefined && f.help !== ours.help) {
      different.push(`${name} help ${JSON.stringify(f.help)} ≠ ${JSON.stringify(ours.help)}`);
    }
  }
  const extra = [...bunlet].filter(([name]) => !upstream.has(name)).sort(([a], [b]) => a.localeCompare(b)).map(([name, f]) => describe(name, f));
  return { missing, different, extra };
}
