// Crash-loop backoff tables: doBackOff (kuberuntime_manager.go) over the kubelet's
// flowcontrol.Backoff (10 s doubling to 300 s, HasExpiredFunc 600 s, backOff.GC in housekeeping),
// driven on a FakeClock with time between a container's exit and the sync that looks at it.
import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "../../../src/api/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { doBackOff, newCrashLoopBackoff, type BackoffDecision } from "../../../src/runtime/crashloop.ts";
import type { RuntimePodStatus } from "../../../src/container/index.ts";
import { containerStatus } from "./fixtures.ts";
import { makePod } from "../../fixtures/pods.ts";

const T0 = Date.UTC(2026, 0, 1);
const IMAGE = "docker.io/library/busybox:1.36";

/**
 * One container's life, in seconds from T0. The container runs from 0. `exit` ends the running
 * container; `starts` is a sync that lets it start again (it runs from then on); `waits` is a sync
 * that holds it in CrashLoopBackOff with that message delay until `until`; `image` changes the spec
 * (and so the container hash) from then on.
 */
type Step =
  | { at: number; exit: true }
  | { at: number; starts: true }
  | { at: number; waits: string; until: number }
  | { at: number; image: string };

const exit = (at: number): Step => ({ at, exit: true });
const starts = (at: number): Step => ({ at, starts: true });
const waits = (at: number, delay: string, until: number): Step => ({ at, waits: delay, until });
const image = (at: number, name: string): Step => ({ at, image: name });

/** From `from`: exits, waits each delay, starts, and exits again one second later. */
function crashLoop(from: number, delays: [string, number][]): { steps: Step[]; end: number } {
  const steps: Step[] = [];
  let t = from;
  for (const [delay, seconds] of delays) {
    steps.push(exit(t), waits(t, delay, t + seconds), starts(t + seconds));
    t += seconds + 1;
  }
  return { steps, end: t - 1 };
}

function pod(uid = "uid-1", name = "web"): Pod {
  return makePod({ name, namespace: "ns", metadata: { uid }, spec: { restartPolicy: "Always", containers: [{ name: "app", image: IMAGE }] } });
}

/** Plays the steps against one backoff; every sync's decision is checked as it happens. */
async function play(steps: Step[]): Promise<void> {
  const clock = new FakeClock(T0);
  const backoff = newCrashLoopBackoff(clock);
  const p = pod();
  let container: Container = p.spec.containers[0];
  let startedAt = T0;
  let status: RuntimePodStatus = { uid: "uid-1", name: "web", namespace: "ns", ips: [], sandboxStatuses: [], containerStatuses: [] };
  for (const step of steps) {
    const at = T0 + step.at * 1000;
    if (at < clock.now()) throw new Error(`steps out of order at ${step.at} s`);
    await clock.advance(at - clock.now());
    const where = `at ${step.at} s`;
    if ("image" in step) {
      container = { ...container, image: step.image };
      p.spec.containers = [container];
      continue;
    }
    if ("exit" in step) {
      // The exited container carries the hash of the spec it was started from.
      const exited = containerStatus(`c-${step.at}`, container, { state: "exited", startedAt, finishedAt: at, exitCode: 1 });
      status = { ...status, containerStatuses: [exited] };
      continue;
    }
    const decision = doBackOff(backoff, p, container, status);
    if ("starts" in step) {
      expect({ where, decision }).toEqual({ where, decision: { inBackoff: false } });
      startedAt = at;
      continue;
    }
    const want: BackoffDecision = {
      inBackoff: true,
      message: `back-off ${step.waits} restarting failed container=app pod=web_ns(uid-1)`,
      expiresAt: T0 + step.until * 1000,
    };
    expect({ where, decision }).toEqual({ where, decision: want });
  }
}

interface Case {
  name: string;
  steps: Step[];
}

const cases: Case[] = [
  { name: "the first exit restarts at once", steps: [exit(5), starts(5)] },
  {
    name: "the second exit waits 10 s from the exit, to the millisecond",
    steps: [exit(5), starts(5), exit(6), waits(6, "10s", 16), waits(15.999, "10s", 16), starts(16)],
  },
  {
    // A late sync (a busy node, a slow PLEG) does not push the restart back, and the 60 s the
    // container ran before this exit do not shorten the wait.
    name: "a sync long after the exit counts the wait from the exit, not from the sync or the start",
    steps: [exit(5), starts(5), exit(65), waits(70, "10s", 75), waits(74.999, "10s", 75), starts(75)],
  },
  {
    name: "a sync after the wait is over starts at once, and the next wait still doubles",
    steps: [exit(5), starts(5), exit(6), starts(40), exit(41), waits(41, "20s", 61), starts(61)],
  },
  {
    name: "waits double from 10 s and stop at the 300 s cap",
    steps: [
      exit(1),
      starts(1),
      ...crashLoop(2, [
      ["10s", 10],
      ["20s", 20],
      ["40s", 40],
      ["1m20s", 80],
      ["2m40s", 160],
        ["5m0s", 300],
        ["5m0s", 300],
      ]).steps,
    ],
  },
  {
    // The key carries the container hash: a new image is a new container, a first crash again.
    name: "a spec change during a crash loop starts the new container at once, with a fresh backoff",
    steps: [
      exit(1),
      starts(1),
      ...crashLoop(2, [
        ["10s", 10],
        ["20s", 20],
      ]).steps,
      exit(34),
      waits(34, "40s", 74),
      image(35, "docker.io/library/busybox:1.37"),
      starts(35),
      exit(36),
      waits(36, "10s", 46),
      starts(46),
    ],
  },
  {
    name: "a container that ran 9 minutes after its restart keeps its backoff (10 s → 20 s)",
    steps: [exit(1), starts(1), exit(2), waits(2, "10s", 12), starts(12), exit(12 + 9 * 60), waits(12 + 9 * 60, "20s", 32 + 9 * 60)],
  },
  {
    name: "exactly 10 minutes after the restart is not yet a reset",
    steps: [exit(1), starts(1), exit(2), waits(2, "10s", 12), starts(12), exit(12 + 600), waits(12 + 600, "20s", 32 + 600)],
  },
  {
    name: "a container that ran 11 minutes after its restart starts at once and starts over at 10 s",
    steps: [exit(1), starts(1), exit(2), waits(2, "10s", 12), starts(12), exit(12 + 11 * 60), starts(12 + 11 * 60), exit(13 + 11 * 60), waits(13 + 11 * 60, "10s", 23 + 11 * 60)],
  },
];

/**
 * At the cap: the 10 minutes count from the restart the backoff last allowed, not from the exit
 * before it. A container that ran 6 minutes after a 300 s wait is still crash-looping (upstream
 * stamps lastUpdate when Next runs); and once 10 minutes passed since that restart during the next
 * wait, the entry is gone (backOff.GC) and the wait after it starts over at 10 s.
 */
function capCase(): Case {
  const loop = crashLoop(2, [
    ["10s", 10],
    ["20s", 20],
    ["40s", 40],
    ["1m20s", 80],
    ["2m40s", 160],
    ["5m0s", 300],
  ]);
  const restart = loop.end; // the last start, after a 300 s wait
  const exitAt = restart + 6 * 60;
  return {
    name: "at the cap, 6 minutes of running after a 300 s wait do not reset the backoff; the 10 minutes count from the restart",
    steps: [exit(1), starts(1), ...loop.steps, exit(exitAt), waits(exitAt, "5m0s", exitAt + 300), starts(exitAt + 300), exit(exitAt + 301), waits(exitAt + 301, "10s", exitAt + 311)],
  };
}

describe("doBackOff: crash-loop backoff on a FakeClock", () => {
  for (const c of [...cases, capCase()]) test(c.name, () => play(c.steps));

  test("containers and pods back off separately: the key has the pod UID and the container name", async () => {
    const clock = new FakeClock(T0);
    const backoff = newCrashLoopBackoff(clock);
    const a = pod("uid-a", "web");
    const b = pod("uid-b", "web");
    const spec = a.spec.containers[0];
    const exited = (id: string, finishedAt: number, name = "app"): RuntimePodStatus => ({
      uid: "",
      name: "",
      namespace: "ns",
      ips: [],
      sandboxStatuses: [],
      containerStatuses: [containerStatus(id, { ...spec, name }, { state: "exited", finishedAt })],
    });
    // Pod a crashes twice: its second exit waits.
    expect(doBackOff(backoff, a, spec, exited("a1", T0))).toEqual({ inBackoff: false });
    expect(doBackOff(backoff, a, spec, exited("a2", T0)).inBackoff).toBe(true);
    // The same container name in another pod, and another container of pod a, restart at once.
    expect(doBackOff(backoff, b, spec, exited("b1", T0))).toEqual({ inBackoff: false });
    const sidecar = { ...spec, name: "other" };
    expect(doBackOff(backoff, a, sidecar, exited("o1", T0, "other"))).toEqual({ inBackoff: false });
  });

  test("a container that never exited is not in backoff", () => {
    const backoff = newCrashLoopBackoff(new FakeClock(T0));
    const p = pod();
    const running = containerStatus("c1", p.spec.containers[0], { state: "running", startedAt: T0 });
    const status: RuntimePodStatus = { uid: "uid-1", name: "web", namespace: "ns", ips: [], sandboxStatuses: [], containerStatuses: [running] };
    expect(doBackOff(backoff, p, p.spec.containers[0], status)).toEqual({ inBackoff: false });
    expect(backoff.size).toBe(0);
  });
});
