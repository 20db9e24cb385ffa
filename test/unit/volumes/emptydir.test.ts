// The size of a memory-backed emptyDir (calculateEmptyDirMemorySize) and the mount table parse.
import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { emptyDirMemorySize } from "../../../src/volumes/emptydir.ts";
import { makePod } from "../../fixtures/pods.ts";

const Gi = 1n << 30n;
const pod = (limits: (string | undefined)[], initLimit?: string): Pod =>
  makePod({
    spec: {
      containers: limits.map((l, i) => ({ name: `c${i}`, resources: l ? { limits: { memory: l } } : {} })),
      initContainers: initLimit ? [{ name: "i", resources: { limits: { memory: initLimit } } }] : [],
    },
  });

describe("emptyDir medium Memory size", () => {
  const table: [string, Pod, string | undefined, bigint][] = [
    ["no limits: the node's allocatable", pod([undefined]), undefined, 8n * Gi],
    ["the pod's memory limit, summed over containers", pod(["1Gi", "512Mi"]), undefined, Gi + Gi / 2n],
    ["an init container's larger limit", pod(["1Gi"], "2Gi"), undefined, 2n * Gi],
    ["sizeLimit when lower", pod(["1Gi"]), "64Mi", 64n << 20n],
    ["sizeLimit higher than the pod limit is ignored", pod(["1Gi"]), "4Gi", Gi],
    ["sizeLimit 0 is unset", pod([undefined]), "0", 8n * Gi],
  ];
  test.each(table)("%s", (_name, p, sizeLimit, expected) => expect(emptyDirMemorySize(8n * Gi, sizeLimit, p)).toBe(expected));
});
