/**
 * bunlet's entry point plus a heap probe, for scripts/bench-memory.ts only (never shipped): on
 * SIGUSR2 the process writes bun:jsc's heapStats() (object counts and sizes per type) as JSON to
 * $BUNLET_HEAP_PROBE.json, and with $BUNLET_HEAP_SNAPSHOT=1 a full heap snapshot beside it, after
 * a full GC, so a benchmark can see what the agent's heap holds at 0 and at N pods.
 */
import { fullGC, heapStats, memoryUsage } from "bun:jsc";
import { writeFileSync } from "node:fs";

const out = process.env.BUNLET_HEAP_PROBE;
let taken = 0;
if (out) {
  process.on("SIGUSR2", () => {
    fullGC();
    const n = taken++;
    writeFileSync(`${out}.${n}.json`, JSON.stringify({ ...heapStats(), memoryUsage: process.memoryUsage(), jsc: memoryUsage() }));
    if (process.env.BUNLET_HEAP_SNAPSHOT === "1") writeFileSync(`${out}.${n}.heapsnapshot`, JSON.stringify(Bun.generateHeapSnapshot()));
  });
}
// After the handler: main.ts's top-level await holds its importer until the agent exits.
await import("../../src/main.ts");
