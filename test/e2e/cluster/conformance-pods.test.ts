/**
 * The pod lifecycle NodeConformance specs of issue 24 against a bunlet node of a real cluster,
 * each through the apiserver the way the upstream spec drives it: readiness gates moved by status
 * patches (pods.go "should support pod readiness gates"), activeDeadlineSeconds lowered on a
 * running pod ("should allow activeDeadlineSeconds to be updated"), an ephemeral container added
 * through the ephemeralcontainers subresource (ephemeral_containers.go), and container restart
 * rules under pod restartPolicy Never (container_restart_policy.go).
 */
import { describe, expect, test } from "bun:test";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { kubectlApply, kubectlJson as kubectlJsonOf } from "./kubectl.ts";
import { freePort } from "../agent/bunlet.ts";
import { clusterNodeFixture } from "./fixture.ts";
import type { Container, Pod } from "../../../src/api/index.ts";
import { boundTo, makePod } from "../../fixtures/pods.ts";

const NODE = "bunlet-confpods";
let port = 0;
// The kubelet API with the cluster's client CA: the apiserver's logs and exec requests reach the node.
const fx = clusterNodeFixture({
  name: "confpods",
  node: NODE,
  waitTimeoutMs: 120_000,
  beforeStart: async () => {
    port = await freePort();
  },
  flags: (fx) => [`--port=${port}`, `--client-ca-file=${fx.cluster.clientCaFile}`],
});
const waitFor = fx.waitFor;
const kubectlJson = <T = any>(args: string[]) => kubectlJsonOf<T>(fx.cluster, args);
const getPod = (name: string) => kubectlJson(["get", "pod", name]);

/** What every pod of this file has: its namespace, its node; busybox from the node's images, sleeping, unless a test says otherwise. */
const onNode = (name: string, container: Partial<Container>, spec: Partial<Pod["spec"]> = {}) =>
  makePod({ name, namespace: fx.namespace, spec: { ...boundTo(NODE), ...spec }, container: { imagePullPolicy: "Never", ...container } });

async function kubectl(args: string[]): Promise<void> {
  const r = await fx.cluster.kubectl(args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}: ${r.stderr.trim()}`);
}

const condition = (p: any, type: string) => p.status?.conditions?.find((c: any) => c.type === type);
const running = (p: any) => p.status?.phase === "Running" && p.status.containerStatuses?.[0]?.state?.running !== undefined;

describe("pod lifecycle conformance on a bunlet node", () => {
  test("readiness gates: Ready follows the gate conditions a client patches into the status", async () => {
    await waitFor("the Node Ready", async () => condition(await kubectlJson(["get", "node", NODE]), "Ready")?.status === "True");
    await kubectlApply(fx.cluster, onNode("gates", {}, { readinessGates: [{ conditionType: "k8s.io/test-condition1" }, { conditionType: "k8s.io/test-condition2" }] }));
    const first = await waitFor("gates Running", async () => ((p) => (running(p) ? p : undefined))(await getPod("gates")));
    expect(condition(first, "Ready")).toMatchObject({ status: "False", reason: "ReadinessGatesNotReady" });
    const patch = (type: string, status: string) =>
      kubectl(["patch", "pod", "gates", "--subresource=status", "--type=strategic", "-p", JSON.stringify({ status: { conditions: [{ type, status }] } })]);
    await patch("k8s.io/test-condition1", "True");
    await waitFor("Ready False naming only gate 2", async () => {
      const ready = condition(await getPod("gates"), "Ready");
      return ready?.status === "False" && ready.message === 'corresponding condition of pod readiness gate "k8s.io/test-condition2" does not exist.';
    });
    await patch("k8s.io/test-condition2", "True");
    await waitFor("Ready True with both gates True", async () => condition(await getPod("gates"), "Ready")?.status === "True", 30_000);
    await patch("k8s.io/test-condition1", "False");
    await waitFor("Ready False again", async () => condition(await getPod("gates"), "Ready")?.status === "False", 30_000);
  }, 240_000);

  test("activeDeadlineSeconds lowered on a running pod: Failed with DeadlineExceeded, containers stopped", async () => {
    await kubectlApply(fx.cluster, onNode("deadline", {}, { activeDeadlineSeconds: 600 }));
    await waitFor("deadline Running", async () => running(await getPod("deadline")));
    await kubectl(["patch", "pod", "deadline", "--type=merge", "-p", JSON.stringify({ spec: { activeDeadlineSeconds: 5 } })]);
    const failed = await waitFor("deadline Failed", async () => ((p) => (p.status?.phase === "Failed" ? p : undefined))(await getPod("deadline")), 60_000);
    expect(failed.status.reason).toBe("DeadlineExceeded");
    expect(failed.status.message).toBe("Pod was active on the node longer than the specified deadline");
    const events = await kubectlJson(["get", "events", "--field-selector", "involvedObject.name=deadline,reason=DeadlineExceeded"]);
    expect(events.items.length).toBeGreaterThan(0);
    await waitFor("no running container of deadline in containerd", async () => {
      const { containers } = await fx.cri.runtime.listContainers({});
      return !containers.some((c) => c.labels["io.kubernetes.pod.name"] === "deadline" && c.state === 1);
    }, 30_000);
  }, 240_000);

  test("an ephemeral container added through the ephemeralcontainers subresource runs and is reported", async () => {
    await kubectlApply(fx.cluster, onNode("target", {}));
    await waitFor("target Running", async () => running(await getPod("target")));
    const debugger1 = { name: "debugger", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command: ["sh", "-c", "while true; do echo polo; sleep 2; done"], stdin: true, tty: true };
    await kubectl(["patch", "pod", "target", "--subresource=ephemeralcontainers", "--type=strategic", "-p", JSON.stringify({ spec: { ephemeralContainers: [debugger1] } })]);
    const p = await waitFor("debugger running in ephemeralContainerStatuses", async () => {
      const p = await getPod("target");
      return p.status?.ephemeralContainerStatuses?.find((s: any) => s.name === "debugger")?.state?.running ? p : undefined;
    }, 60_000);
    expect(p.status.ephemeralContainerStatuses[0]).toMatchObject({ name: "debugger", ready: false, containerID: expect.stringMatching(/^containerd:\/\//) });
    expect(condition(p, "Ready")?.status).toBe("True");
    // The upstream spec then reads the ephemeral container's log and execs into it.
    await waitFor("the ephemeral container's log through the apiserver", async () => (await fx.cluster.kubectl(["logs", "target", "-c", "debugger"])).stdout.includes("polo"), 30_000);
    const exec = await fx.cluster.kubectl(["exec", "target", "-c", "debugger", "--", "echo", "marco"]);
    expect(exec).toMatchObject({ code: 0, stdout: "marco\n" });
    const debugger2 = { name: "debugger2", image: BUSYBOX_IMAGE, imagePullPolicy: "Never", command: ["sleep", "3600"] };
    await kubectl(["patch", "pod", "target", "--subresource=ephemeralcontainers", "--type=strategic", "-p", JSON.stringify({ spec: { ephemeralContainers: [debugger1, debugger2] } })]);
    await waitFor("two ephemeral containers running", async () => {
      const s = (await getPod("target")).status?.ephemeralContainerStatuses ?? [];
      return s.length === 2 && s.every((x: any) => x.state?.running);
    }, 60_000);
  }, 240_000);

  test("restart rules under pod Never: a Restart rule on exit 42 restarts; a mismatch fails the pod with no restart", async () => {
    const rule: Partial<Container> = { restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }] };
    await kubectlApply(fx.cluster, onNode("rule-match", { ...rule, command: ["sh", "-c", "exit 42"] }, { restartPolicy: "Never" }));
    await kubectlApply(fx.cluster, onNode("rule-mismatch", { ...rule, command: ["sh", "-c", "exit 1"] }, { restartPolicy: "Never" }));
    await kubectlApply(fx.cluster, onNode("own-always", { restartPolicy: "Always", command: ["sh", "-c", "exit 1"] }, { restartPolicy: "Never" }));
    await waitFor("rule-match restarted", async () => ((await getPod("rule-match")).status?.containerStatuses?.[0]?.restartCount ?? 0) > 0, 120_000);
    await waitFor("own-always restarted", async () => ((await getPod("own-always")).status?.containerStatuses?.[0]?.restartCount ?? 0) > 0, 120_000);
    const mismatch = await waitFor("rule-mismatch Failed", async () => ((p) => (p.status?.phase === "Failed" ? p : undefined))(await getPod("rule-mismatch")), 120_000);
    expect(mismatch.status.containerStatuses[0].restartCount).toBe(0);
    expect((await getPod("rule-match")).status.phase).toBe("Running");
  }, 300_000);
});
