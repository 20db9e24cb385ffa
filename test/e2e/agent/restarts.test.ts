/**
 * dist/bunlet on a real containerd, for what only shows across a restart of bunlet or a real
 * crash loop: a static pod edited while bunlet was stopped starts only after the old version
 * stopped (no CRI listing shows the new sandbox beside the old running container), and a
 * crash-looping container shows `waiting CrashLoopBackOff` in /pods for its whole back-off
 * (judged by the order of what /pods showed, the containers CRI lists and bunlet's own log times).
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ContainerStatus, Pod, PodList } from "../../../src/api/index.ts";
import { ContainerState, labels } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { agentFixture, linePod } from "./bunlet.ts";

const BUSYBOX = "docker.io/library/busybox:1.36";
const STEP_MS = 180_000;

const fx = agentFixture({ name: "restarts", hostname: "e2e-node", waitTimeoutMs: 45_000 });
const { waitFor } = fx;

function writePod(name: string, command: string[]): void {
  const pod = makePod({ name, namespace: "default", container: { name: "main", image: BUSYBOX, command }, spec: { terminationGracePeriodSeconds: 2 } });
  writeFileSync(join(fx.manifests, `${name}.json`), JSON.stringify(pod));
}

async function apiPod(name: string): Promise<Pod | undefined> {
  const list = (await (await fetch(`http://127.0.0.1:${fx.port}/pods`)).json()) as PodList;
  return list.items.find((i) => i.metadata.name === `${name}-e2e-node`);
}

async function runningInApi(name: string): Promise<Pod | undefined> {
  const p = await apiPod(name);
  const cs = p?.status?.containerStatuses ?? [];
  return p?.status?.phase === "Running" && cs.length > 0 && cs.every((c) => c.ready) ? p : undefined;
}

const ofPod = (name: string) => (l: { [k: string]: string }) => l[labels.KubernetesPodNameLabel] === `${name}-e2e-node`;

describe("dist/bunlet across restarts and crash loops", () => {
  test("a manifest edited while bunlet was stopped: the new pod's sandbox is created only after the old container stopped", async () => {
    await fx.start();
    writePod("web", ["sleep", "3600"]);
    const old = await waitFor("web Running", () => runningInApi("web"));
    fx.bunlet!.signal("SIGTERM");
    expect(await fx.bunlet!.exited).toBe(0);

    writePod("web", ["sleep", "7200"]);
    const uidOf = (l: { [k: string]: string }) => l[labels.KubernetesPodUIDLabel];
    const oldRunning = async () =>
      (await fx.cri.runtime.listContainers({})).containers.some((c) => uidOf(c.labels) === old.metadata.uid && c.state === ContainerState.CONTAINER_RUNNING);
    expect(await oldRunning()).toBe(true);
    await fx.start();
    // Each sample lists the new pod's sandboxes first, then the old pod's running containers:
    // a sample that finds both saw the two versions side by side.
    const sideBySide: string[] = [];
    const fresh = await waitFor("the edited web Running", async () => {
      const p = await runningInApi("web");
      const newSandboxes = (await fx.cri.runtime.listPodSandbox({})).items.filter((sb) => ofPod("web")(sb.labels) && uidOf(sb.labels) !== old.metadata.uid);
      if (newSandboxes.length > 0 && (await oldRunning())) sideBySide.push(newSandboxes.map((sb) => sb.id).join(","));
      return p && p.metadata.uid !== old.metadata.uid ? p : undefined;
    });
    expect(sideBySide).toEqual([]);
    expect(await oldRunning()).toBe(false);
    const newSandboxes = (await fx.cri.runtime.listPodSandbox({})).items.filter((sb) => uidOf(sb.labels) === fresh.metadata.uid);
    expect(newSandboxes).toHaveLength(1);
    expect(fx.bunlet!.lines.some((l) => l.msg === "Killing orphaned runtime pod" && l.podUID === old.metadata.uid)).toBe(true);
  }, STEP_MS);

  test("a crash-looping container shows waiting CrashLoopBackOff in /pods for its whole back-off", async () => {
    writePod("crash", ["sh", "-c", "exit 1"]);
    // Each sample notes the wall time it asked /pods, then what /pods showed, then reads CRI: when
    // CRI still shows attempt 1 (the first restart, which is immediate) exited and nothing newer,
    // the /pods answer was given before attempt 2 was created, during the back-off.
    const inBackoff: { askedAt: number; shown: string }[] = [];
    const describeState = (s: ContainerStatus | undefined) => {
      const state = s?.state;
      if (state?.waiting) return `waiting ${state.waiting.reason}`;
      if (state?.terminated) return `terminated ${state.terminated.reason}`;
      return state?.running ? "running" : "none";
    };
    const attempts = async () =>
      (await fx.cri.runtime.listContainers({})).containers.filter((c) => ofPod("crash")(c.labels)).sort((a, b) => a.metadata!.attempt - b.metadata!.attempt);
    // Attempt 1's exit time is read while it is the newest container: once attempt 2 exits,
    // bunlet's container GC may remove it (MaxPerPodContainer=1).
    let finishedAt = 0;
    const second = await waitFor(
      "the container's third attempt (after a 10 s back-off)",
      async () => {
        const askedAt = Date.now();
        const shown = describeState((await apiPod("crash"))?.status?.containerStatuses?.[0]);
        const all = await attempts();
        const newest = all.at(-1);
        if (newest === undefined) return false;
        if (newest.metadata!.attempt >= 2) return all.find((c) => c.metadata!.attempt >= 2);
        if (newest.metadata!.attempt === 1 && newest.state === ContainerState.CONTAINER_EXITED) {
          inBackoff.push({ askedAt, shown });
          finishedAt ||= Number((await fx.cri.runtime.containerStatus({ containerId: newest.id })).status!.finishedAt / 1000n) / 1000;
        }
        return false;
      },
      60_000,
    );

    // The order of the states /pods showed: until bunlet's PLEG sees the exit it may still say
    // running; then at most the exit (the moment before the sync that found the back-off recorded
    // it), then CrashLoopBackOff and nothing else until the restart.
    const shown = inBackoff.map((s) => s.shown);
    const seen = shown.slice(shown.findIndex((s) => s !== "running"));
    const firstBackoff = seen.indexOf("waiting CrashLoopBackOff");
    expect(firstBackoff).toBeGreaterThanOrEqual(0);
    expect(seen.slice(0, firstBackoff).every((s) => s.startsWith("terminated"))).toBe(true);
    expect(seen.slice(firstBackoff).filter((s) => s !== "waiting CrashLoopBackOff")).toEqual([]);

    // The back-off as the runtime's own clocks and bunlet's log tell it, in order: attempt 1
    // exits, the first sync after it finds the back-off and logs it, attempt 2 is created no
    // earlier than 10 s after the exit (the kubelet counts the back-off from FinishedAt).
    expect(finishedAt).toBeGreaterThan(0);
    const createdAt = Number(second!.createdAt / 1000n) / 1000;
    expect(createdAt - finishedAt).toBeGreaterThanOrEqual(9_999);
    const backoffLine = fx.bunlet!.lines.find((l) => l.msg === "Back-off restarting failed container" && linePod(l, "default/crash-e2e-node"));
    expect(String(backoffLine?.message)).toStartWith("back-off 10s restarting failed container=main pod=crash-e2e-node_default(");
    const loggedAt = Number(backoffLine!.ts);
    // Both clocks are this host's wall clock; a log line's time is within a millisecond of it.
    expect(loggedAt).toBeGreaterThan(finishedAt - 1);
    expect(loggedAt).toBeLessThan(createdAt + 1);
    // That sync records CrashLoopBackOff in the same step as the line: every /pods request sent
    // after the line was written shows it (bunlet without the fix showed the exit until the next
    // sync, near the back-off's end). Ordered by the line's own time, not a share of samples, so a
    // slow machine takes fewer samples but never a wrong one; the back-off lasts 10 s, time for
    // many 100 ms samples, so at least one is taken.
    const afterLine = inBackoff.filter((s) => s.askedAt > loggedAt + 2);
    expect(afterLine.length).toBeGreaterThan(0);
    expect(afterLine.map((s) => s.shown).filter((s) => s !== "waiting CrashLoopBackOff")).toEqual([]);
  }, STEP_MS);
});
