import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeManifest } from "../../../src/podconfig/decode.ts";

// The README's quick start points at examples/: every manifest there must be a valid static pod
// that only uses the image available offline.
const dir = join(import.meta.dir, "../../../examples");

describe("examples/", () => {
  const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"));

  test("holds the web and sleeper pods", () => {
    expect(files.sort()).toEqual(["sleeper.yaml", "web.yaml"]);
  });

  for (const file of files) {
    test(`${file} decodes as a static pod using busybox:1.36 without pulling`, () => {
      const pod = decodeManifest(readFileSync(join(dir, file)), { source: `examples/${file}`, nodeName: "demo", isFile: true });
      const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
      expect(containers.map((c) => [c.image, c.imagePullPolicy])).toEqual(
        containers.map(() => ["docker.io/library/busybox:1.36", "IfNotPresent"]),
      );
    });
  }
});
