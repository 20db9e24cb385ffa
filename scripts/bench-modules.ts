/**
 * What loading a module costs the agent before it does anything (issue 30): for each entry below,
 * a small program that imports it and keeps what it imported (so the bundler drops nothing) is
 * built as bunlet is (`bun build --compile --minify`), run once, and reports its resident memory
 * after a full collection and `Bun.shrink()`: anonymous and file-backed MiB, the JS heap and its
 * object count. The first row is Bun with nothing imported; the others are read against it.
 *
 *   bun scripts/bench-modules.ts
 *
 * Memory only (no timing), so it does not need the benchmark lock. Builds go to .tmp/modules/.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../test/harness/images.ts";

interface Entry {
  name: string;
  /** The entry's imports; each line must bind names that `keep` lists. */
  imports: string[];
  keep: string;
}

const entries: Entry[] = [
  { name: "Bun, nothing imported", imports: [], keep: "" },
  {
    name: "node:http2, http, https, tls, net, child_process, zlib",
    imports: ['import * as h2 from "node:http2";', 'import * as http from "node:http";', 'import * as https from "node:https";', 'import * as tls from "node:tls";', 'import * as net from "node:net";', 'import * as cp from "node:child_process";', 'import * as zlib from "node:zlib";'],
    keep: "h2, http, https, tls, net, cp, zlib",
  },
  { name: "@bufbuild/protobuf's create, fromBinary, toBinary", imports: ['import { create, fromBinary, toBinary } from "@bufbuild/protobuf";'], keep: "create, fromBinary, toBinary" },
  {
    name: "the same and the CRI descriptors (src/cri/gen, the two services)",
    imports: ['import { create, fromBinary, toBinary } from "@bufbuild/protobuf";', 'import { ImageService, RuntimeService } from "./src/cri/gen/runtime/v1/api_pb.ts";'],
    keep: "create, fromBinary, toBinary, ImageService, RuntimeService",
  },
  { name: "prom-client's Counter, Gauge, Histogram, Registry", imports: ['import { Counter, Gauge, Histogram, Registry } from "prom-client";'], keep: "Counter, Gauge, Histogram, Registry" },
  { name: "yaml's parseAllDocuments, stringify", imports: ['import { parseAllDocuments, stringify } from "yaml";'], keep: "parseAllDocuments, stringify" },
  { name: "src/metrics (prom-client and bunlet's metric families)", imports: ['import * as metrics from "./src/metrics/index.ts";'], keep: "metrics" },
  { name: "src/cri (descriptors, client, HTTP/2 transport)", imports: ['import * as cri from "./src/cri/index.ts";'], keep: "cri" },
  {
    name: "all of the agent (main.ts's imports)",
    imports: ['import { runCrictl } from "./src/cli/index.ts";', 'import { parseArgs } from "./src/config/index.ts";', 'import { startAgent } from "./src/kubelet/index.ts";'],
    keep: "runCrictl, parseArgs, startAgent",
  },
];

const REPORT = `
const { fullGC, heapStats } = await import("bun:jsc");
fullGC();
Bun.shrink();
await Bun.sleep(300);
const text = require("node:fs").readFileSync("/proc/self/smaps_rollup", "utf8");
const kib = (key: string) => Number(new RegExp(key + ":\\\\s+(\\\\d+)").exec(text)![1]);
const heap = heapStats();
console.log(JSON.stringify({ anon: kib("Anonymous") / 1024, rss: kib("Rss") / 1024, heap: heap.heapSize / 1048576, objects: heap.objectCount, kept: kept.length }));
`;

const dir = join(REPO_ROOT, ".tmp", "modules");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const bun = join(REPO_ROOT, "node_modules", ".bin", "bun");

interface Row {
  name: string;
  anon: number;
  file: number;
  heap: number;
  objects: number;
}
const rows: Row[] = [];
for (const [i, e] of entries.entries()) {
  // The entry sits at the repo root so its relative imports read as the list above.
  const source = join(REPO_ROOT, `.bench-modules-entry-${i}.ts`);
  const binary = join(dir, `entry-${i}`);
  writeFileSync(source, `${e.imports.join("\n")}\nconst kept: unknown[] = [${e.keep}];\n${REPORT}`);
  try {
    const build = Bun.spawnSync([bun, "build", "--compile", "--minify", source, "--outfile", binary], { stdout: "pipe", stderr: "pipe" });
    if (build.exitCode !== 0) throw new Error(`build of "${e.name}" failed: ${build.stderr.toString()}`);
  } finally {
    rmSync(source, { force: true });
  }
  const run = Bun.spawnSync([binary], { stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`"${e.name}" exited ${run.exitCode}: ${run.stderr.toString()}`);
  const r = JSON.parse(run.stdout.toString().trim()) as { anon: number; rss: number; heap: number; objects: number };
  rows.push({ name: e.name, anon: r.anon, file: r.rss - r.anon, heap: r.heap, objects: r.objects });
}

const base = rows[0]!;
const f = (n: number) => n.toFixed(1);
const signed = (n: number) => `${n >= 0 ? "+" : ""}${n.toFixed(1)}`;
console.log("| imported | anonymous MiB | above Bun alone | file-backed MiB | JS heap MB | heap objects |");
console.log("|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(`| ${r.name} | ${f(r.anon)} | ${r === base ? "-" : signed(r.anon - base.anon)} | ${f(r.file)} | ${f(r.heap)} | ${r.objects} |`);
}
