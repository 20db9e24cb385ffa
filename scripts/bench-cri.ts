/**
 * CRI call overhead of the two gRPC client stacks against a real containerd: N Version calls
 * serially and with 16 in flight, per transport, with the median of several rounds. Prints a
 * table and the ratio of each stack to the faster one measured in the same run.
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

async function serial(kind: TransportKind): Promise<number> {
  const cri = createCriClient({ endpoint, transport: kind });
  await cri.runtime.version({});
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await cri.runtime.version({});
  const ms = performance.now() - t0;
  cri.close();
  return ms;
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
const kinds: TransportKind[] = ["connect", "grpc-js"];
const results: Record<string, { serial: number; c16: number }> = {};
for (const kind of kinds) {
  const s: number[] = [];
  const c: number[] = [];
  for (let r = 0; r < rounds; r++) {
    s.push(await serial(kind));
    c.push(await concurrent(kind, 16));
  }
  results[kind] = { serial: median(s), c16: median(c) };
}
const bestSerial = Math.min(...kinds.map((k) => results[k].serial));
const bestC16 = Math.min(...kinds.map((k) => results[k].c16));
console.log(`CRI Version x${calls}, median of ${rounds} rounds, endpoint ${endpoint}`);
console.log("transport | serial total ms | µs/call | ratio | 16-way total ms | µs/call | ratio");
console.log("---|---|---|---|---|---|---");
for (const k of kinds) {
  const { serial: s, c16 } = results[k];
  console.log(
    `${k} | ${s.toFixed(1)} | ${((s * 1000) / calls).toFixed(0)} | ${(s / bestSerial).toFixed(2)} | ${c16.toFixed(1)} | ${((c16 * 1000) / calls).toFixed(0)} | ${(c16 / bestC16).toFixed(2)}`,
  );
}
await stop?.();
