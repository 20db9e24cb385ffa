// Sysctl admission in the whole agent (upstream NodeConformance "Sysctls [LinuxOnly] should not
// launch unsafe, but not explicitly enabled sysctls on the node"): a pod setting an unsafe sysctl
// the node does not allow is Failed with SysctlForbidden and no sandbox is made for it; allowed by
// --allowed-unsafe-sysctls it runs, and the sandbox carries the sysctl.
import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import type { RunPodSandboxRequest } from "../../../src/cri/index.ts";
import { BUSYBOX, getPods, runningPod, useAgentFixture, waitFor, writeManifest } from "./helpers.ts";
import { makePod } from "../../fixtures/pods.ts";

const TIMEOUT_MS = 30_000;

/** The sandbox configs bunlet asked the runtime for, in order. */
const sandboxConfigs = (fx: ReturnType<typeof useAgentFixture>) =>
  fx.fake.calls.filter((c) => c.method === "RunPodSandbox").map((c) => (c.request as RunPodSandboxRequest).config!);

/** A pod of one sleeping busybox container "main" with these pod-level sysctls. */
function sysctlPod(name: string, sysctls: Record<string, string>): Pod {
  return makePod({
    name,
    namespace: "default",
    container: { name: "main", image: BUSYBOX, command: ["sleep", "3600"] },
    spec: { securityContext: { sysctls: Object.entries(sysctls).map(([n, value]) => ({ name: n, value })) } },
  });
}

describe("sysctl admission", () => {
  const fx = useAgentFixture();

  test("an unsafe sysctl the node does not allow: Failed, SysctlForbidden, no sandbox", async () => {
    writeManifest(fx.dirs, "unsafe.json", sysctlPod("unsafe", { "kernel.msgmax": "10000000000" }));
    writeManifest(fx.dirs, "safe.json", sysctlPod("safe", { "kernel/shm_rmid_forced": "1" }));
    const agent = await fx.start();
    // The safe one runs, so the unsafe one has been seen and judged by then.
    await waitFor("the safe pod running", () => runningPod(agent, "safe"));
    const pod = await waitFor("the unsafe pod Failed", async () => (await getPods(agent)).items.find((p) => p.metadata.name === "unsafe-node1" && p.status?.phase === "Failed"));
    expect(pod.status).toMatchObject({ reason: "SysctlForbidden", message: 'Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted' });
    expect(sandboxConfigs(fx).map((c) => c.metadata?.name)).toEqual(["safe-node1"]);
    expect(sandboxConfigs(fx)[0]!.linux?.sysctls).toEqual({ "kernel.shm_rmid_forced": "1" });
  }, TIMEOUT_MS);

  test("--allowed-unsafe-sysctls lets it run, and the sandbox sets it", async () => {
    writeManifest(fx.dirs, "unsafe.json", sysctlPod("unsafe", { "kernel.msgmax": "10000000000" }));
    const agent = await fx.start(["--allowed-unsafe-sysctls=kernel.msg*,net.core.somaxconn"]);
    await waitFor("the unsafe pod running", () => runningPod(agent, "unsafe"));
    expect(sandboxConfigs(fx)[0]!.linux?.sysctls).toEqual({ "kernel.msgmax": "10000000000" });
  }, TIMEOUT_MS);

  test("a pattern that is not a namespaced sysctl stops the start with the kubelet's message", async () => {
    await expect(fx.start(["--allowed-unsafe-sysctls=vm.swappiness"])).rejects.toThrow('bunlet: --allowed-unsafe-sysctls: the sysctls "vm.swappiness" are not known to be namespaced');
  }, TIMEOUT_MS);
});
