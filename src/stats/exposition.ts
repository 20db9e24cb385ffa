/**
 * The Prometheus text format (0.0.4) as the kubelet's component-base registries write it, for the
 * endpoints whose series are made per scrape from stats (/metrics/resource, /metrics/cadvisor)
 * rather than kept in prom-client's registry: families sorted by name, a family's label names
 * sorted, its series sorted by label values, values in Go's shortest `%g` (strconv 'g', -1:
 * 1.2345e+07, not 12345000), and the explicit millisecond timestamp a stats sample carries.
 * A family with no series is left out, as client_golang leaves it out.
 */

export type MetricType = "counter" | "gauge";

export interface Sample {
  labels?: Record<string, string>;
  value: number;
  /** Unix ms of the sample; without it the scraper takes the scrape time. */
  timestampMs?: number;
}

export interface MetricFamily {
  name: string;
  /** The help text as written, stability annotation included ("[STABLE] …"). */
  help: string;
  type: MetricType;
  samples: Sample[];
}

export const PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

/** strconv.FormatFloat(f, 'g', -1, 64), with expfmt's special cases. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (f === Infinity) return "+Inf";
  if (f === -Infinity) return "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const [mantissa, expText] = f.toExponential().split("e");
  const exp = Number(expText);
  // Go takes %e below 1e-4 and from 1e6: the shortest form decides with precision 6.
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    const digits = String(Math.abs(exp)).padStart(2, "0");
    return `${mantissa}e${sign}${digits}`;
  }
  return String(f);
}

const escapeHelp = (s: string) => s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const escapeValue = (s: string) => s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

function compareSamples(names: readonly string[]) {
  return (a: Sample, b: Sample): number => {
    for (const n of names) {
      const x = a.labels?.[n] ?? "";
      const y = b.labels?.[n] ?? "";
      if (x !== y) return x < y ? -1 : 1;
    }
    return (a.timestampMs ?? 0) - (b.timestampMs ?? 0);
  };
}

export function exposition(families: readonly MetricFamily[]): string {
  const out: string[] = [];
  // A series' labels rendered once per labels object: the sources hand the same object to every
  // series of one container (a /metrics/cadvisor scrape at 100 pods has about 4,000 series).
  const rendered = new Map<Record<string, string>, string>();
  const render = (labels: Record<string, string>): string => {
    let text = rendered.get(labels);
    if (text === undefined) {
      const pairs = Object.keys(labels)
        .sort()
        .map((k) => `${k}="${escapeValue(labels[k]!)}"`);
      text = pairs.length > 0 ? `{${pairs.join(",")}}` : "";
      rendered.set(labels, text);
    }
    return text;
  };
  for (const f of [...families].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (f.samples.length === 0) continue;
    const nameSet = new Set<string>();
    for (const s of f.samples) for (const k in s.labels) nameSet.add(k);
    const names = [...nameSet].sort();
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of [...f.samples].sort(compareSamples(names))) {
      const labels = s.labels ? render(s.labels) : "";
      const ts = s.timestampMs !== undefined ? ` ${Math.floor(s.timestampMs)}` : "";
      out.push(`${f.name}${labels} ${goFloat(s.value)}${ts}`);
    }
  }
  return out.length > 0 ? `${out.join("\n")}\n` : "";
}
