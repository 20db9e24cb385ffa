/**
 * CRI call overhead of the gRPC client stacks against a real containerd: N Version calls serially
 * (time and this process's CPU) and with 16 in flight, per transport, with the median of several
 * rounds. Prints a table and the ratio of each stack to the best one measured in the same run.
 *
 *   bun scripts/bench-cri.ts [--endpoint unix:///path] [--calls 1000] [--rounds 5]
 *
 * Without --endpoint it starts a throwaway containerd through the test harness.
 */
import { createCriClient, type TransportKind } from "../src/cri/index.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const calls = Number(arg("calls", "1000"));
const rounds = Number(arg("rounds", "5"));
let endpoint = arg("endpoint", "");
let stop: (() => Promise<void>) | undefined;
if (!endpoint) {
  const { startTestContainerd } = await import("../test/harness/containerd.ts");
  const ctd = await startTestContainerd({ name: "bench-cri" });
  endpoint = ctd.endpoint;
  stop = () => ctd.stop();
}

async function serial(kind: TransportKind): Promise<{ ms: number; cpuMs: number }> {
  const cri = createCriClient({ endpoint, transport: kind });
  await cri.runtime.version({});
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await cri.runtime.version({});
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  cri.close();
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function concurrent(kind: TransportKind, width: number): Promise<number> {
  const cri = createCriClient({ endpoint, transport: kind });
  await cri.runtime.version({});
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next++ < calls) await cri.runtime.version({});
    }),
  );
  const ms = performance.now() - t0;
  cri.close();
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kinds: TransportKind[] = ["h2", "grpc-js", "connect"];
const results: Record<string, { serial: number; cpu: number; c16: number }> = {};
for (const kind of kinds) {
  const s: number[] = [];
  const cpu: number[] = [];
  const c: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const one = await serial(kind);
    s.push(one.ms);
    cpu.push(one.cpuMs);
    c.push(await concurrent(kind, 16));
  }
  results[kind] = { serial: median(s), cpu: median(cpu), c16: median(c) };
}
const bestSerial = Math.min(...kinds.map((k) => results[k].serial));
const bestCpu = Math.min(...kinds.map((k) => results[k].cpu));
const bestC16 = Math.min(...kinds.map((k) => results[k].c16));
console.log(`CRI Version x${calls}, median of ${rounds} rounds, endpoint ${endpoint}`);
console.log("transport | serial total ms | µs/call | ratio | serial CPU µs/call | ratio | 16-way total ms | µs/call | ratio");
console.log("---|---|---|---|---|---|---|---|---");
for (const k of kinds) {
  const { serial: s, cpu, c16 } = results[k];
  console.log(
    `${k} | ${s.toFixed(1)} | ${((s * 1000) / calls).toFixed(0)} | ${(s / bestSerial).toFixed(2)} | ${((cpu * 1000) / calls).toFixed(0)} | ${(cpu / bestCpu).toFixed(2)} | ${c16.toFixed(1)} | ${((c16 * 1000) / calls).toFixed(0)} | ${(c16 / bestC16).toFixed(2)}`,
  );
}
await stop?.();
