/**
 * Metric families of a Prometheus text exposition (name → type and label names) and the diff of
 * two agents' families, for scripts/metrics-parity.ts: which of the kubelet's families bunlet
 * lacks, which it has with another type or other labels, and which are bunlet's own. A histogram's
 * or summary's labels are its series' without `le`/`quantile`.
 */

export interface Family {
  type: string;
  labels: string[];
}

export function parseFamilies(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const labelSets = new Map<string, Set<string>>();
  for (const line of text.split("\n")) {
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
  for (const [name, f] of families) f.labels = [...labelSets.get(name)!].sort();
  return families;
}

export interface FamilyDiff {
  missing: string[];
  different: string[];
  extra: string[];
}

const describe = (name: string, f: Family) => `${name} ${f.type}{${f.labels.join(",")}}`;

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
    }
  }
  const extra = [...bunlet].filter(([name]) => !upstream.has(name)).sort(([a], [b]) => a.localeCompare(b)).map(([name, f]) => describe(name, f));
  return { missing, different, extra };
}
