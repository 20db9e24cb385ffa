/**
 * `bunlet crictl logs -f` over the fake CRI: an interrupt ends the follow with status 0 whether it
 * lands while the follower waits for the next poll or while its container-status check is in
 * flight (it once exited 130 in the second case, depending on when the user pressed Ctrl-C).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCrictl } from "../../../src/cli/index.ts";
import { createCriClient, type CriClient } from "../../../src/cri/index.ts";
import { containerConfig, sandboxConfig, startFakeCri, type FakeCri } from "../../fake-cri/index.ts";
import { waitFor } from "../../harness/wait.ts";

let cri: FakeCri;
let client: CriClient;
let dir = "";
let containerId = "";

beforeAll(async () => {
  cri = await startFakeCri();
  client = createCriClient({ endpoint: cri.endpoint });
  dir = mkdtempSync(join(tmpdir(), "bunlet-crictl-logs-"));
  const sandbox = sandboxConfig("web", { logDirectory: dir });
  const { podSandboxId } = await client.runtime.runPodSandbox({ config: sandbox });
  const created = await client.runtime.createContainer({ podSandboxId, config: containerConfig("app", "docker.io/library/busybox:1.36", ["sleep", "1d"]), sandboxConfig: sandbox });
  containerId = created.containerId;
  await client.runtime.startContainer({ containerId });
  mkdirSync(join(dir, "app"));
  writeFileSync(join(dir, "app", "0.log"), "2026-11-24T01:00:00.000000000Z stdout F hello\n");
});

afterAll(async () => {
  client?.close();
  await cri?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function follow(interruptWhen: () => Promise<void>): Promise<{ status: number; out: string }> {
  const interrupt = new AbortController();
  let out = "";
  const running = runCrictl(["-r", cri.endpoint, "logs", "-f", containerId], {
    out: (text) => void (out += text),
    err: () => {},
    env: {},
    now: () => Date.now(),
    signal: interrupt.signal,
  });
  await waitFor("the existing line", () => out === "hello\n");
  await interruptWhen();
  interrupt.abort(new Error("interrupted"));
  return { status: await running, out };
}

test("an interrupt during the wait between polls ends the follow with status 0", async () => {
  expect(await follow(async () => {})).toEqual({ status: 0, out: "hello\n" });
});

test("an interrupt during the container-status check ends the follow with status 0", async () => {
  try {
    const checkHangs = async () => {
      cri.delay("ContainerStatus", 60_000);
      await cri.whenCalled("ContainerStatus", cri.calls.filter((c) => c.method === "ContainerStatus").length + 1);
    };
    expect(await follow(checkHangs)).toEqual({ status: 0, out: "hello\n" });
  } finally {
    cri.delay("ContainerStatus", 0);
  }
});
