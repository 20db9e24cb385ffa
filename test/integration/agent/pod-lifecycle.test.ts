// Pod lifecycle rules of the NodeConformance specs, through the whole agent on the fake CRI and
// real time: the active deadline (pods.go "should allow activeDeadlineSeconds to be updated") and
// container restart rules under pod restartPolicy Never (container_restart_rules.go).
import { describe, expect, test } from "bun:test";
import { ContainerState } from "../../../src/cri/index.ts";
import { busyboxPod, getPods, useAgentFixture, waitFor, writeManifest } from "./helpers.ts";

const TIMEOUT_MS = 40_000;
const fx = useAgentFixture();
const running = (name: string) => fx.fake.state.containers.filter((c) => c.name === name && c.state === ContainerState.CONTAINER_RUNNING);

describe("pod lifecycle on the fake CRI", () => {
  test("a pod past its activeDeadlineSeconds is killed and Failed with DeadlineExceeded", async () => {
    const pod = busyboxPod("deadline");
    pod.spec.activeDeadlineSeconds = 2;
    writeManifest(fx.dirs, "deadline.json", pod);
    const agent = await fx.start();
    await waitFor("main running", () => running("main").length === 1);
    const failed = await waitFor("the pod Failed in /pods", async () => {
      const p = (await getPods(agent)).items.find((x) => x.metadata.name === "deadline-node1");
      return p?.status?.phase === "Failed" ? p : undefined;
    });
    expect(failed.status?.reason).toBe("DeadlineExceeded");
    expect(failed.status?.message).toBe("Pod was active on the node longer than the specified deadline");
    await waitFor("main stopped", () => running("main").length === 0);
    // Nothing is started again: the pod is terminal.
    await Bun.sleep(1500);
    expect(running("main").length).toBe(0);
  }, TIMEOUT_MS);

  test("pod Never with a container Restart rule on exit code 42: restarted in the same sandbox, then Failed on exit 1", async () => {
    const pod = busyboxPod("rules", { restartPolicy: "Never" });
    Object.assign(pod.spec.containers[0]!, { restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }] });
    writeManifest(fx.dirs, "rules.json", pod);
    const agent = await fx.start();
    const first = await waitFor("main running", () => running("main")[0]);
    fx.fake.exitContainer(first.id, 42);
    const second = await waitFor("main restarted", () => running("main").find((c) => c.id !== first.id));
    expect(second.attempt).toBe(1);
    expect(fx.fake.calls.filter((c) => c.method === "RunPodSandbox").length).toBe(1);
    const restarted = await waitFor("restartCount 1 and Running in /pods", async () => {
      const p = (await getPods(agent)).items.find((x) => x.metadata.name === "rules-node1");
      return p?.status?.phase === "Running" && p.status.containerStatuses?.[0]?.restartCount === 1 ? p : undefined;
    });
    expect(restarted.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).toBe(42);

    fx.fake.exitContainer(second.id, 1);
    const failed = await waitFor("the pod Failed in /pods", async () => {
      const p = (await getPods(agent)).items.find((x) => x.metadata.name === "rules-node1");
      return p?.status?.phase === "Failed" ? p : undefined;
    });
    expect(failed.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(1);
    await Bun.sleep(1500);
    expect(running("main").length).toBe(0);
    expect(fx.fake.calls.filter((c) => c.method === "RunPodSandbox").length).toBe(1);
  }, TIMEOUT_MS);
});
