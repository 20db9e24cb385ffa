import { describe, expect, test } from "bun:test";
import { ConfigError, parseArgs } from "../../../src/config/index.ts";
import type { ParseEnv } from "../../../src/config/types.ts";

const header = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
const env = (text?: string): ParseEnv => ({
  hostname: () => "node-a",
  readFile: (path) => {
    if (text === undefined || path !== "/etc/bunlet/config.yaml") throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
    return text;
  },
});

function run(argv: string[], text?: string) {
  const r = parseArgs(text === undefined ? argv : ["--config=/etc/bunlet/config.yaml", ...argv], env(text));
  if (r.kind !== "run") throw new Error(r.kind);
  return r;
}
function problem(argv: string[], text?: string): string {
  try {
    run(argv, text);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

describe("--offline-start / offlineStart (the checkpoint)", () => {
  test("on by default; the flag and the config field turn it off; a non-boolean field is refused", () => {
    expect(run([]).config.offlineStart).toBe(true);
    expect(run(["--offline-start=false"]).config.offlineStart).toBe(false);
    expect(run([], `${header}offlineStart: false\n`).config.offlineStart).toBe(false);
    expect(run(["--offline-start=true"], `${header}offlineStart: false\n`).config.offlineStart).toBe(true);
    expect(problem([], `${header}offlineStart: "no"\n`)).toContain("offlineStart");
  });
});

describe("node upkeep settings from the config file, with the kubelet's names", () => {
  test("logs, images, eviction and shutdown fields are read and acted on (not listed as ignored)", () => {
    const { config, notices } = run(
      [],
      `${header}
containerLogMaxSize: 50Mi
containerLogMaxFiles: 3
containerLogMaxWorkers: 2
containerLogMonitorInterval: 5s
podLogsMaxTotalSize: 1Gi
imageGCHighThresholdPercent: 90
imageGCLowThresholdPercent: 70
imageMinimumGCAge: 5m
imageMaximumGCAge: 168h
evictionHard: {memory.available: 200Mi, nodefs.available: 5%}
evictionSoft: {memory.available: 500Mi}
evictionSoftGracePeriod: {memory.available: 1m30s}
evictionPressureTransitionPeriod: 30s
evictionMaxPodGracePeriod: 60
shutdownGracePeriod: 30s
shutdownGracePeriodCriticalPods: 10s
`,
    );
    expect(config).toMatchObject({
      containerLogMaxSize: 50 * 1024 * 1024,
      containerLogMaxFiles: 3,
      containerLogMaxWorkers: 2,
      containerLogMonitorIntervalMs: 5000,
      podLogsMaxTotalSize: 1024 ** 3,
      imageGCHighThresholdPercent: 90,
      imageGCLowThresholdPercent: 70,
      imageMinimumGCAgeMs: 300_000,
      imageMaximumGCAgeMs: 168 * 3_600_000,
      evictionHard: { "memory.available": "200Mi", "nodefs.available": "5%" },
      evictionSoft: { "memory.available": "500Mi" },
      evictionSoftGracePeriod: { "memory.available": 90_000 },
      evictionPressureTransitionPeriodMs: 30_000,
      evictionMaxPodGracePeriod: 60,
      shutdownGracePeriodMs: 30_000,
      shutdownGracePeriodCriticalPodsMs: 10_000,
    });
    expect(notices).toEqual([]);
  });

  test("evictionHard not given stays undefined: the eviction manager applies the kubelet's defaults", () => {
    expect(run([]).config.evictionHard).toBeUndefined();
  });
});

describe("node upkeep flags", () => {
  test("kubelet flags set the same fields; --eviction-hard merges across occurrences", () => {
    const { config } = run([
      "--container-log-max-size=1Mi",
      "--container-log-max-files=2",
      "--image-gc-high-threshold=50",
      "--image-gc-low-threshold=40",
      "--minimum-image-ttl-duration=0s",
      "--eviction-hard=memory.available<1Gi",
      "--eviction-hard",
      "nodefs.available<20%,imagefs.available<30%",
      "--eviction-soft-grace-period=memory.available=10s",
      "--evict-static-pods",
      "--containerd-log-level=warn",
    ]);
    expect(config).toMatchObject({
      containerLogMaxSize: 1024 * 1024,
      containerLogMaxFiles: 2,
      imageGCHighThresholdPercent: 50,
      imageGCLowThresholdPercent: 40,
      imageMinimumGCAgeMs: 0,
      evictionHard: { "memory.available": "1Gi", "nodefs.available": "20%", "imagefs.available": "30%" },
      evictionSoftGracePeriod: { "memory.available": 10_000 },
      evictStaticPods: true,
      containerdLogLevel: "warn",
    });
  });

  const bad: [string, string[], string | undefined, string][] = [
    ["a log must keep two files", ["--container-log-max-files=1"], undefined, "--container-log-max-files"],
    ["a size is a quantity", ["--container-log-max-size=10 MB"], undefined, "expected a quantity such as 10Mi"],
    ["a percent stays within 0..100", ["--image-gc-high-threshold=101"], undefined, "must be between 0 and 100"],
    ["low above high is refused, naming both (ValidateKubeletConfiguration)", ["--image-gc-high-threshold=70", "--image-gc-low-threshold=80"], undefined,
      "imageGCLowThresholdPercent (--image-gc-low-threshold) (80) must be less than or equal to imageGCHighThresholdPercent (--image-gc-high-threshold) (70)"],
    ["a malformed --eviction-hard pair", ["--eviction-hard=memory.available=1Gi"], undefined, "malformed pair"],
    ["a bad soft grace period names its signal", ["--eviction-soft-grace-period=memory.available=soon"], undefined, "memory.available: "],
    ["critical shutdown grace above the total", [], `${header}shutdownGracePeriod: 10s\nshutdownGracePeriodCriticalPods: 20s\n`, "shutdownGracePeriodCriticalPods (--shutdown-grace-period-critical-pods) must be <= shutdownGracePeriod"],
    ["imageMaximumGCAge must exceed imageMinimumGCAge", [], `${header}imageMaximumGCAge: 1m\n`, "imageMaximumGCAge 1m0s must be greater than imageMinimumGCAge 2m0s"],
    ["an unknown containerd log level", ["--containerd-log-level=loud"], undefined, "expected one of trace, debug, info"],
  ];
  for (const [name, argv, text, want] of bad) test(name, () => expect(problem(argv, text)).toContain(want));
});
