// Pod admission judges a pod against the Node as registration makes it: the same labels, from the
// same function and the same machine facts.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { admissionNode } from "../../../src/podsync/admission.ts";
import { parseArgs } from "../../../src/config/index.ts";
import { nodeLabels, readMachineInfo } from "../../../src/node/index.ts";

const dir = mkdtempSync(join(tmpdir(), "bunlet-admission-node-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the admission node's labels are the registered Node's: hostname, the machine's OS and arch, --node-labels", () => {
  const parsed = parseArgs(["--hostname-override", "Edge-1", "--node-labels", "tier=edge", "--root-dir", dir]);
  if (parsed.kind !== "run") throw new Error(`parseArgs: ${parsed.kind}`);
  const machine = readMachineInfo(dir);
  expect(admissionNode(parsed.config).labels).toEqual(
    nodeLabels({ hostname: "edge-1", operatingSystem: machine.operatingSystem, architecture: machine.architecture, nodeLabels: { tier: "edge" } }),
  );
});
