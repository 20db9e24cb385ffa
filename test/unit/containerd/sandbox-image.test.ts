import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureSandboxImage, normalizeImageName } from "../../../src/containerd/sandbox-image.ts";
import { silentLogger } from "../../../src/lib/index.ts";

describe("normalizeImageName (docker's reference normalisation, as containerd names images)", () => {
  const cases: [string, string][] = [
    ["pause", "docker.io/library/pause:latest"],
    ["pause:3.10", "docker.io/library/pause:3.10"],
    ["edge/pause:3.10", "docker.io/edge/pause:3.10"],
    ["registry.k8s.io/pause:3.10.2", "registry.k8s.io/pause:3.10.2"],
    ["localhost/pause", "localhost/pause:latest"],
    ["127.0.0.1:5000/pause", "127.0.0.1:5000/pause:latest"],
    ["registry.example:5000/a/b:1", "registry.example:5000/a/b:1"],
    ["registry.example/pause@sha256:abc", "registry.example/pause@sha256:abc"],
  ];
  for (const [given, want] of cases) test(`${given} → ${want}`, () => expect(normalizeImageName(given)).toBe(want));
});

describe("ensureSandboxImage: the bundled pause stands in for --pod-infra-container-image", () => {
  const dir = mkdtempSync(join(tmpdir(), "bunlet-sandbox-image-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const BUNDLED = "registry.k8s.io/pause:3.10.2";
  /** A ctr that lists `images` and records every call; `tag` fails when `failTag`. */
  function fakeCtr(images: string[], failTag = false): { ctr: string; calls: () => string[] } {
    const id = Math.random().toString(36).slice(2);
    const log = join(dir, `${id}.calls`);
    const ctr = join(dir, `${id}.ctr`);
    writeFileSync(log, "");
    writeFileSync(
      ctr,
      [
        "#!/bin/sh",
        `echo "$*" >> ${log}`,
        'case "$6" in',
        `  ls) printf '%s\\n' ${images.map((i) => `'${i}'`).join(" ")} ;;`,
        `  tag) ${failTag ? 'echo "ctr: image \\"$8\\": already exists" >&2; exit 1' : "echo $8"} ;;`,
        "esac",
      ].join("\n"),
    );
    chmodSync(ctr, 0o755);
    return { ctr, calls: () => readFileSync(log, "utf8").trim().split("\n").filter(Boolean) };
  }
  const run = (sandboxImage: string, f: ReturnType<typeof fakeCtr>) =>
    ensureSandboxImage({ socketPath: "/run/c.sock", sandboxImage, bundledImage: BUNDLED, log: silentLogger, ctr: f.ctr });

  test("the default sandbox image is the bundled one: nothing to do, containerd not asked", () => {
    const f = fakeCtr([BUNDLED]);
    expect(run(BUNDLED, f)).toBe("bundled");
    expect(f.calls()).toEqual([]);
  });

  test("another name, not on the node: the bundled pause is tagged under it (normalised)", () => {
    const f = fakeCtr([BUNDLED, "docker.io/library/busybox:1.36"]);
    expect(run("edge/pause:3.10", f)).toBe("tagged");
    expect(f.calls()).toEqual(["--address /run/c.sock -n k8s.io images ls -q", `--address /run/c.sock -n k8s.io images tag ${BUNDLED} docker.io/edge/pause:3.10`]);
  });

  test("an image of that name already there is left alone", () => {
    const f = fakeCtr([BUNDLED, "example.com/pause:3.10"]);
    expect(run("example.com/pause:3.10", f)).toBe("present");
    expect(f.calls()).toHaveLength(1);
  });

  test("no bundled pause on the node: nothing tagged, containerd pulls the sandbox image", () => {
    const f = fakeCtr(["docker.io/library/busybox:1.36"]);
    expect(run("example.com/pause:3.10", f)).toBe("missing");
    expect(f.calls()).toHaveLength(1);
  });

  test("a failing tag or list is reported, not thrown", () => {
    expect(run("example.com/pause:3.10", fakeCtr([BUNDLED], true))).toBe("failed");
    const broken = ensureSandboxImage({ socketPath: "/run/c.sock", sandboxImage: "example.com/pause:3.10", bundledImage: BUNDLED, log: silentLogger, ctr: join(dir, "no-such-ctr") });
    expect(broken).toBe("failed");
  });
});
