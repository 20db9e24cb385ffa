// --resolv-conf / resolvConf: the runtime manager takes the node resolver from that file, and ""
// gives pods none of the host's (the kubelet's rule), as the sandbox config RunPodSandbox gets shows.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import { createMetrics } from "../../../src/metrics/index.ts";
import { createRuntimeManager } from "../../../src/runtime/index.ts";
import { startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import { c, uniquePod } from "./harness.ts";

let fake: FakeCri;
let cri: CriClient;
let root = "";

beforeAll(async () => {
  const clock = new FakeClock();
  fake = await startFakeCri({ clock });
  cri = createCriClient({ endpoint: fake.endpoint });
  root = mkdtempSync(join(tmpdir(), "bunlet-resolv-"));
});

afterAll(async () => {
  cri.close();
  await fake.stop();
  rmSync(root, { recursive: true, force: true });
});

async function sandboxDns(resolvConf: string) {
  const rm = createRuntimeManager({
    cri,
    clock: new FakeClock(),
    log: createMemoryLogger(),
    metrics: createMetrics(),
    random: () => 0.5,
    podLogsDir: join(root, "logs"),
    containerLogsDir: join(root, "containers"),
    podsDir: join(root, "pods"),
    nodeName: "node1",
    resolvConf,
  });
  const pod = uniquePod({ containers: [c("main")] });
  fake.clearCalls();
  const signal = new AbortController().signal;
  await rm.syncPod(pod, await rm.getPodStatus(pod.metadata.uid!, pod.metadata.name!, pod.metadata.namespace!, { signal }), { signal });
  const sandbox = fake.state.sandboxes.find((s) => s.config.metadata?.uid === pod.metadata.uid);
  return sandbox?.config.dnsConfig;
}

test("the node resolver comes from the resolvConf file", async () => {
  const file = join(root, "resolv.conf");
  writeFileSync(file, "nameserver 10.53.0.1\nsearch edge.local\noptions ndots:2\n");
  expect(await sandboxDns(file)).toMatchObject({ servers: ["10.53.0.1"], searches: ["edge.local"], options: ["ndots:2"] });
});

test('resolvConf "" gives pods none of the host\'s resolver settings', async () => {
  expect(await sandboxDns("")).toMatchObject({ servers: [], searches: [], options: [] });
});
