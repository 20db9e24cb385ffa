/**
 * The metric-family diff of issue 26 item 3: the upstream kubelet (scripts/k8s/build.sh kubelet)
 * and dist/bunlet, each standalone on a test containerd of its own with the same static pod, are
 * scraped on /metrics, /metrics/probes, /metrics/resource and /metrics/cadvisor, and their families
 * (name, type, label names) compared. Prints, per endpoint, the kubelet's families bunlet lacks,
 * those it has with another type or labels, and bunlet's own.
 *
 *   bun scripts/metrics-parity.ts                # print the report
 *   bun scripts/metrics-parity.ts --write FILE   # and write it to FILE (docs/metrics-parity.txt)
 *   bun scripts/metrics-parity.ts --reference FILE   # and the kubelet's families, with their help
 *                                                    # texts, to FILE (docs/metrics-kubelet-families.txt)
 *
 * Needs root and the e2e lock (it starts two containerds): run it under
 * `flock /tmp/bunlet-e2e.lock`.
 */
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { BUSYBOX_IMAGE } from "../src/containerd/index.ts";
import { startTestContainerd, type TestContainerd } from "../test/harness/containerd.ts";
import { unmountUnder } from "../test/harness/cleanup.ts";
import { ensureBuilt, freePort, nodeFlags, startBunlet } from "../test/e2e/agent/bunlet.ts";
import { diffFamilies, formatReference, parseFamilies } from "./lib/metric-families.ts";
import { kubeletConfig } from "./lib/bench-kubelet.ts";

const ENDPOINTS = ["/metrics", "/metrics/probes", "/metrics/resource", "/metrics/cadvisor"];
const version = /^\s*k8s\.io\/kubernetes (v\S+)/m.exec(readFileSync(join(import.meta.dir, "k8s/go.mod"), "utf8"))![1]!;
const kubeletBinary = join(process.env.BUNLET_K8S_CACHE ?? "/var/cache/bunlet-k8s", version, "kubelet");

// A pod with a readiness probe, so the probe families have series on both sides, and an emptyDir,
// so the volume operations' families have series too.
const manifest = stringify({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "parity", namespace: "default" },
  spec: {
    containers: [
      {
        name: "main",
        image: BUSYBOX_IMAGE,
        imagePullPolicy: "Never",
        command: ["sh", "-c", "head -c 1000000 /dev/urandom | md5sum; exec sleep 3600"],
        readinessProbe: { exec: { command: ["true"] }, periodSeconds: 2 },
        volumeMounts: [{ name: "scratch", mountPath: "/scratch" }],
      },
    ],
    volumes: [{ name: "scratch", emptyDir: {} }],
  },
});

async function scrape(port: number): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of ENDPOINTS) {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(20_000) });
    out[path] = res.ok ? await res.text() : "";
  }
  return out;
}

async function main(): Promise<void> {
  const write = process.argv.indexOf("--write");
  if (!existsSync(kubeletBinary)) throw new Error(`${kubeletBinary} not found: run \`bash scripts/k8s/build.sh kubelet\` first`);
  ensureBuilt();
  const ctds: TestContainerd[] = [];
  const roots: string[] = [];
  let kubelet: ReturnType<typeof Bun.spawn> | undefined;
  let bunlet: Awaited<ReturnType<typeof startBunlet>> | undefined;
  try {
    // The upstream kubelet.
    const kctd = await startTestContainerd({ name: "parity-kubelet" });
    ctds.push(kctd);
    const kroot = mkdtempSync(join(tmpdir(), "bunlet-parity-kubelet-"));
    roots.push(kroot);
    for (const d of ["manifests", "pod-logs", "pki"]) mkdirSync(join(kroot, d), { recursive: true });
    writeFileSync(join(kroot, "manifests", "parity.yaml"), manifest);
    const kports = { port: await freePort(), readOnly: await freePort(), healthz: await freePort() };
    writeFileSync(join(kroot, "config.yaml"), stringify(kubeletConfig(kroot, kctd.endpoint, kports, {})));
    const log = openSync(join(kroot, "kubelet.log"), "w");
    kubelet = Bun.spawn([kubeletBinary, `--config=${join(kroot, "config.yaml")}`, `--root-dir=${join(kroot, "kubelet")}`, `--cert-dir=${join(kroot, "pki")}`, "--hostname-override=parity", "--v=1"], {
      stdout: log,
      stderr: log,
      stdin: "ignore",
    });
    closeSync(log);

    // bunlet, the same pod.
    const bctd = await startTestContainerd({ name: "parity-bunlet" });
    ctds.push(bctd);
    const broot = mkdtempSync(join(tmpdir(), "bunlet-parity-bunlet-"));
    roots.push(broot);
    mkdirSync(join(broot, "manifests"));
    writeFileSync(join(broot, "manifests", "parity.yaml"), manifest);
    bunlet = await startBunlet([...nodeFlags(bctd.endpoint, broot, "parity"), `--pod-manifest-path=${join(broot, "manifests")}`, `--healthz-port=${await freePort()}`], await freePort());

    // Both run the pod and probe it a few times; the kubelet's housekeeping and stats need ~30 s.
    await Bun.sleep(45_000);
    // Twice: the HTTP server's families count the first scrape's requests in the second.
    await scrape(kports.readOnly);
    await scrape(bunlet.readOnlyPort);
    const upstream = await scrape(kports.readOnly);
    const ours = await scrape(bunlet.readOnlyPort);
    const reference = new Map<string, ReturnType<typeof parseFamilies>>();
    const lines = [`# Metric families: the upstream kubelet ${version} vs bunlet, standalone, one static pod with a readiness probe.`, `# Written by scripts/metrics-parity.ts; go_* families are the Go runtime's and counted, not listed.`];
    for (const path of ENDPOINTS) {
      const up = parseFamilies(upstream[path]!);
      const go = [...up.keys()].filter((n) => n.startsWith("go_"));
      for (const n of go) up.delete(n);
      reference.set(path, up);
      const diff = diffFamilies(up, parseFamilies(ours[path]!));
      lines.push("", `## ${path} (kubelet: ${up.size} families + ${go.length} go_*)`, "", "### in the kubelet, not in bunlet", ...diff.missing, "", "### different type or labels (kubelet ≠ bunlet)", ...diff.different, "", "### bunlet's own", ...diff.extra);
    }
    const report = `${lines.join("\n")}\n`;
    process.stdout.write(report);
    if (write > 0) writeFileSync(process.argv[write + 1]!, report);
    const ref = process.argv.indexOf("--reference");
    if (ref > 0) writeFileSync(process.argv[ref + 1]!, `# The upstream kubelet ${version}'s metric families (go_* left out), standalone, as scripts/metrics-parity.ts scraped them.\n# name type {label names} help; a family the run showed without series has no label names here.\n\n${formatReference(reference)}`);
  } finally {
    kubelet?.kill("SIGKILL");
    await kubelet?.exited;
    bunlet?.signal("SIGKILL");
    await bunlet?.exited;
    for (const c of ctds) await c.stop().catch(() => {});
    for (const r of roots) {
      unmountUnder(r);
      rmSync(r, { recursive: true, force: true });
    }
  }
}

await main();
