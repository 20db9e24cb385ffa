/**
 * The targets table of issue 30 from one run of scripts/bench-targets.ts: per row bunlet's figure,
 * the kubelet's, their ratio, the target and whether it is met. Figures that are missing (a phase
 * failed) print as "-" and the row as not met.
 */

/** What one agent measured in the run (undefined: not measured). */
export interface AgentFigures {
  /** RSS after start-up and one warm-up pod, before any burst (MiB). */
  rss0?: number;
  staticSmall?: Burst & Hold;
  staticLarge?: Burst & Hold;
  clusterSmall?: Burst;
  clusterLarge?: Burst & Hold;
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
  /** Mean RSS over the hold's second half, read every 5 s (both agents' RSS is a sawtooth at rest). */
  rssMeanMiB?: number;
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

function rows(b: AgentFigures, k: AgentFigures, n1: number, n2: number): Row[] {
  const both = (what: string, pick: (f: AgentFigures) => number | undefined, digits: number, atMost?: number): Row => ({ what, bunlet: pick(b), kubelet: pick(k), digits, atMost });
  const rssPerPod = (f: AgentFigures, n: number) => {
    const hold = n === n1 ? f.staticSmall : f.staticLarge;
    return hold && f.rss0 !== undefined ? ((hold.rssIdleMiB - f.rss0) * 1024) / n : undefined;
  };
  const linear = (what: string, pick: (f: AgentFigures) => number | undefined): Row => ({ what, bunlet: pick(b), kubelet: pick(k), digits: 2, atMost: 1.2, growth: true });
  return [
    both(`RSS with ${n1} static pods after the idle hold (MiB)`, (f) => f.staticSmall?.rssIdleMiB, 1, 0.7),
    both(`RSS right after a ${n1}-pod static burst (MiB)`, (f) => f.staticSmall?.rssMiB, 1, 0.8),
    both(`anonymous memory at ${n1} static pods, idle (MiB)`, (f) => f.staticSmall?.anonIdleMiB, 1, 0.6),
    both(`RSS with ${n1} static pods, mean over the hold's second half (MiB)`, (f) => f.staticSmall?.rssMeanMiB, 1),
    both(`agent CPU while ${n1} cluster pods start (s)`, (f) => f.clusterSmall?.cpuSeconds, 2, 0.7),
    both(`agent CPU while ${n1} static pods start (s)`, (f) => f.staticSmall?.cpuSeconds, 2, 0.6),
    both(`idle CPU with ${n1} static pods (cores)`, (f) => f.staticSmall?.idleCores, 4, 1),
    both(`${n1} static pods start-up (ms)`, (f) => f.staticSmall?.ms, 0),
    both(`${n1} cluster pods start-up (ms)`, (f) => f.clusterSmall?.ms, 0),
    both(`${n2} static pods start-up (ms)`, (f) => f.staticLarge?.ms, 0, 1),
    both(`${n2} static pods: CPU for the start (s)`, (f) => f.staticLarge?.cpuSeconds, 2, 1),
    both(`${n2} static pods: RSS after the idle hold (MiB)`, (f) => f.staticLarge?.rssIdleMiB, 1, 1),
    both(`${n2} static pods: idle CPU (cores)`, (f) => f.staticLarge?.idleCores, 4, 1),
    both(`${n2} static pods: mean PLEG relist (ms)`, (f) => f.staticLarge?.relistMs, 1, 1),
    both(`${n2} cluster pods start-up (ms)`, (f) => f.clusterLarge?.ms, 0, 1),
    both(`${n2} cluster pods: CPU for the start (s)`, (f) => f.clusterLarge?.cpuSeconds, 2, 1),
    both(`${n2} cluster pods: RSS after the idle hold (MiB)`, (f) => f.clusterLarge?.rssIdleMiB, 1, 1),
    both(`${n2} cluster pods: idle CPU (cores)`, (f) => f.clusterLarge?.idleCores, 4, 1),
    both(`${n2} cluster pods: mean PLEG relist (ms)`, (f) => f.clusterLarge?.relistMs, 1, 1),
    both(`${n2} cluster pods: mean status sync (ms)`, (f) => f.clusterLarge?.statusSyncMs, 1, 1),
    both(`static start-up per pod at ${n2} (ms)`, (f) => perPod(f.staticLarge?.ms, n2), 1, 1),
    both(`static start CPU per pod at ${n2} (ms)`, (f) => perPod(f.staticLarge?.cpuSeconds === undefined ? undefined : f.staticLarge.cpuSeconds * 1000, n2), 2, 1),
    both(`RSS per static pod at ${n2}, above the 0-pod RSS (KiB)`, (f) => rssPerPod(f, n2), 0, 1),
    linear(`growth ${n1} → ${n2}: static start-up per pod`, (f) => growth(perPod(f.staticSmall?.ms, n1), perPod(f.staticLarge?.ms, n2))),
    linear(`growth ${n1} → ${n2}: static start CPU per pod`, (f) => growth(perPod(f.staticSmall?.cpuSeconds, n1), perPod(f.staticLarge?.cpuSeconds, n2))),
    linear(`growth ${n1} → ${n2}: RSS per static pod`, (f) => growth(rssPerPod(f, n1), rssPerPod(f, n2))),
    linear(`growth ${n1} → ${n2}: idle CPU per static pod`, (f) => growth(perPod(f.staticSmall?.idleCores, n1), perPod(f.staticLarge?.idleCores, n2))),
    linear(`growth ${n1} → ${n2}: cluster start-up per pod`, (f) => growth(perPod(f.clusterSmall?.ms, n1), perPod(f.clusterLarge?.ms, n2))),
    linear(`growth ${n1} → ${n2}: cluster start CPU per pod`, (f) => growth(perPod(f.clusterSmall?.cpuSeconds, n1), perPod(f.clusterLarge?.cpuSeconds, n2))),
  ];
}

export function targetsTable(b: AgentFigures, k: AgentFigures, meta: { idleSeconds: number; pods: [number, number]; loadStart: string; loadEnd: string; when: string }): string {
  const lines = [
    `Issue 30 targets, one run (${meta.when}); idle holds ${meta.idleSeconds} s; load average at start ${meta.loadStart}, at end ${meta.loadEnd}`,
    "",
    "| metric | bunlet | kubelet | bunlet/kubelet | target | met? |",
    "|---|---|---|---|---|---|",
  ];
  for (const r of rows(b, k, ...meta.pods)) {
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
