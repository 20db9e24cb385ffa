/**
 * The targets table of issue 30 from one run of scripts/bench-targets.ts: per row bunlet's figure,
 * the kubelet's, their ratio, the target and whether it is met. Figures that are missing (a phase
 * failed) print as "-" and the row as not met.
 */

/** What one agent measured in the run (undefined: not measured). */
export interface AgentFigures {
  /** RSS after start-up and one warm-up pod, before any burst (MiB). */
  rss0?: number;
  static100?: Burst & Hold;
  static250?: Burst & Hold;
  cluster100?: Burst;
  cluster250?: Burst & Hold;
}

export interface Burst {
  ms: number;
  cpuSeconds: number;
  rssMiB: number;
  anonMiB: number;
}

export interface Hold {
  /** After the hold. */
  rssIdleMiB: number;
  anonIdleMiB: number;
  idleCores: number;
  /** Mean PLEG relist time over the burst and the hold (ms); undefined when none was observed. */
  relistMs?: number;
  /** Mean status sync time (change detected → apiserver updated) over the burst and the hold (ms). */
  statusSyncMs?: number;
}

interface Row {
  what: string;
  bunlet?: number;
  kubelet?: number;
  /** Decimals of the figures. */
  digits: number;
  /** The largest bunlet/kubelet ratio that meets the target; undefined: no target. */
  atMost?: number;
  /** For the linearity rows: the figure is each agent's own growth, met when bunlet's is at most this or the kubelet's. */
  growth?: boolean;
}

const perPod = (x: number | undefined, n: number) => (x === undefined ? undefined : x / n);
const growth = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || a === 0 ? undefined : b / a);

function rows(b: AgentFigures, k: AgentFigures): Row[] {
  const both = (what: string, pick: (f: AgentFigures) => number | undefined, digits: number, atMost?: number): Row => ({ what, bunlet: pick(b), kubelet: pick(k), digits, atMost });
  const rssPerPod = (f: AgentFigures, n: 100 | 250) => {
    const hold = n === 100 ? f.static100 : f.static250;
    return hold && f.rss0 !== undefined ? ((hold.rssIdleMiB - f.rss0) * 1024) / n : undefined;
  };
  const linear = (what: string, pick: (f: AgentFigures) => number | undefined): Row => ({ what, bunlet: pick(b), kubelet: pick(k), digits: 2, atMost: 1.2, growth: true });
  return [
    both("RSS with 100 static pods after the idle hold (MiB)", (f) => f.static100?.rssIdleMiB, 1, 0.7),
    both("RSS right after a 100-pod static burst (MiB)", (f) => f.static100?.rssMiB, 1, 0.8),
    both("anonymous memory at 100 static pods, idle (MiB)", (f) => f.static100?.anonIdleMiB, 1, 0.6),
    both("agent CPU while 100 cluster pods start (s)", (f) => f.cluster100?.cpuSeconds, 2, 0.7),
    both("agent CPU while 100 static pods start (s)", (f) => f.static100?.cpuSeconds, 2, 0.6),
    both("idle CPU with 100 static pods (cores)", (f) => f.static100?.idleCores, 4, 1),
    both("100 static pods start-up (ms)", (f) => f.static100?.ms, 0),
    both("100 cluster pods start-up (ms)", (f) => f.cluster100?.ms, 0),
    both("250 static pods start-up (ms)", (f) => f.static250?.ms, 0, 1),
    both("250 static pods: CPU for the start (s)", (f) => f.static250?.cpuSeconds, 2, 1),
    both("250 static pods: RSS after the idle hold (MiB)", (f) => f.static250?.rssIdleMiB, 1, 1),
    both("250 static pods: idle CPU (cores)", (f) => f.static250?.idleCores, 4, 1),
    both("250 static pods: mean PLEG relist (ms)", (f) => f.static250?.relistMs, 1, 1),
    both("250 cluster pods start-up (ms)", (f) => f.cluster250?.ms, 0, 1),
    both("250 cluster pods: CPU for the start (s)", (f) => f.cluster250?.cpuSeconds, 2, 1),
    both("250 cluster pods: RSS after the idle hold (MiB)", (f) => f.cluster250?.rssIdleMiB, 1, 1),
    both("250 cluster pods: idle CPU (cores)", (f) => f.cluster250?.idleCores, 4, 1),
    both("250 cluster pods: mean PLEG relist (ms)", (f) => f.cluster250?.relistMs, 1, 1),
    both("250 cluster pods: mean status sync (ms)", (f) => f.cluster250?.statusSyncMs, 1, 1),
    both("static start-up per pod at 250 (ms)", (f) => perPod(f.static250?.ms, 250), 1, 1),
    both("static start CPU per pod at 250 (ms)", (f) => perPod(f.static250?.cpuSeconds === undefined ? undefined : f.static250.cpuSeconds * 1000, 250), 2, 1),
    both("RSS per static pod at 250, above the 0-pod RSS (KiB)", (f) => rssPerPod(f, 250), 0, 1),
    linear("growth 100 → 250: static start-up per pod", (f) => growth(perPod(f.static100?.ms, 100), perPod(f.static250?.ms, 250))),
    linear("growth 100 → 250: static start CPU per pod", (f) => growth(perPod(f.static100?.cpuSeconds, 100), perPod(f.static250?.cpuSeconds, 250))),
    linear("growth 100 → 250: RSS per static pod", (f) => growth(rssPerPod(f, 100), rssPerPod(f, 250))),
    linear("growth 100 → 250: idle CPU per static pod", (f) => growth(perPod(f.static100?.idleCores, 100), perPod(f.static250?.idleCores, 250))),
    linear("growth 100 → 250: cluster start-up per pod", (f) => growth(perPod(f.cluster100?.ms, 100), perPod(f.cluster250?.ms, 250))),
    linear("growth 100 → 250: cluster start CPU per pod", (f) => growth(perPod(f.cluster100?.cpuSeconds, 100), perPod(f.cluster250?.cpuSeconds, 250))),
  ];
}

export function targetsTable(b: AgentFigures, k: AgentFigures, meta: { idleSeconds: number; loadStart: string; loadEnd: string; when: string }): string {
  const lines = [
    `Issue 30 targets, one run (${meta.when}); idle holds ${meta.idleSeconds} s; load average at start ${meta.loadStart}, at end ${meta.loadEnd}`,
    "",
    "| metric | bunlet | kubelet | bunlet/kubelet | target | met? |",
    "|---|---|---|---|---|---|",
  ];
  for (const r of rows(b, k)) {
    const fmt = (x: number | undefined) => (x === undefined ? "-" : x.toFixed(r.digits));
    const ratio = r.bunlet !== undefined && r.kubelet !== undefined && r.kubelet !== 0 ? r.bunlet / r.kubelet : undefined;
    let target = "-";
    let met = "-";
    if (r.growth) {
      target = `bunlet's growth ≤ ${r.atMost} or ≤ the kubelet's`;
      met = r.bunlet === undefined ? "no (not measured)" : r.bunlet <= r.atMost! || (r.kubelet !== undefined && r.bunlet <= r.kubelet) ? "yes" : "no";
    } else if (r.atMost !== undefined) {
      target = `≤ ${r.atMost}`;
      met = ratio === undefined ? "no (not measured)" : ratio <= r.atMost ? "yes" : "no";
    }
    lines.push(`| ${r.what} | ${fmt(r.bunlet)} | ${fmt(r.kubelet)} | ${ratio === undefined ? "-" : ratio.toFixed(2)} | ${target} | ${met} |`);
  }
  return lines.join("\n");
}
