import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { logContainerId, logOptionsFromQuery } from "../../../src/server/container-logs.ts";
import { streamOptions } from "../../../src/server/streaming.ts";
import { makePod } from "../../fixtures/pods.ts";

const NOW = Date.parse("2026-01-01T00:10:00Z");

describe("PodLogOptions from the /containerLogs query", () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ["nothing", "", { follow: false, previous: false, timestamps: false, tailLines: undefined, sinceMs: undefined, limitBytes: undefined, stream: undefined }],
    ["follow, previous, timestamps", "follow=true&previous=true&timestamps=1", { follow: true, previous: true, timestamps: true }],
    ["tailLines", "tailLines=5", { tailLines: 5 }],
    ["tail, the old spelling", "tail=7", { tailLines: 7 }],
    ["tail=all is everything", "tail=all&tailLines=3", { tailLines: undefined }],
    ["sinceSeconds counts back from now", "sinceSeconds=60", { sinceMs: NOW - 60_000 }],
    ["sinceTime", "sinceTime=2026-01-01T00:00:00Z", { sinceMs: Date.parse("2026-01-01T00:00:00Z") }],
    ["limitBytes", "limitBytes=100", { limitBytes: 100 }],
    ["stream Stderr", "stream=Stderr", { stream: "stderr" }],
  ];
  for (const [name, q, want] of cases) test(name, () => expect(logOptionsFromQuery(new URLSearchParams(q), NOW)).toMatchObject(want));

  const bad: [string, string, number, string][] = [
    ["a tailLines that is no number", "tailLines=x", 400, `{"message": "Unable to decode query."}`],
    ["a negative tailLines", "tailLines=-1", 422, `{"message": "Invalid request."}`],
    ["sinceSeconds 0", "sinceSeconds=0", 422, `{"message": "Invalid request."}`],
    ["both sinceSeconds and sinceTime", "sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z", 422, `{"message": "Invalid request."}`],
    ["limitBytes 0", "limitBytes=0", 422, `{"message": "Invalid request."}`],
    ["an unknown stream", "stream=Both", 400, `invalid stream type "Both"`],
  ];
  for (const [name, q, status, message] of bad) {
    test(`${name} is ${status}`, () => expect(() => logOptionsFromQuery(new URLSearchParams(q), NOW)).toThrow(expect.objectContaining({ status, message })));
  }
});

describe("which container's log (the kubelet's validateContainerLogStatus)", () => {
  const pod = (status: Record<string, unknown>): Pod =>
    makePod({
      name: "web",
      namespace: "default",
      container: { name: "app", image: "x" },
      status: { containerStatuses: [{ name: "app", image: "x", imageID: "", ready: false, restartCount: 1, ...status }] },
    });
  const running = { state: { running: { startedAt: "t" } }, containerID: "containerd://new", lastState: { terminated: { exitCode: 1, containerID: "containerd://old" } } };
  const cases: [string, Pod, boolean, string | RegExp][] = [
    ["the running container", pod(running), false, "new"],
    ["previous: the last terminated one", pod(running), true, "old"],
    ["previous without one", pod({ state: { running: {} }, containerID: "containerd://new" }), true, /previous terminated container "app" in pod "web" not found/],
    ["terminated: its own id", pod({ state: { terminated: { exitCode: 0, containerID: "containerd://done" } } }), false, "done"],
    ["terminated without id: the last one", pod({ state: { terminated: { exitCode: 0 } }, lastState: { terminated: { exitCode: 1, containerID: "containerd://old" } } }), false, "old"],
    ["waiting in a crash loop: the last one", pod({ state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: { terminated: { exitCode: 1, containerID: "containerd://old" } } }), false, "old"],
    ["waiting for its image", pod({ state: { waiting: { reason: "ImagePullBackOff" } } }), false, /container "app" in pod "web" is waiting to start: trying and failing to pull image/],
    ["waiting to be created", pod({ state: { waiting: { reason: "ContainerCreating" } } }), false, /container "app" in pod "web" is waiting to start: ContainerCreating/],
  ];
  for (const [name, p, previous, want] of cases) {
    test(name, () => {
      if (want instanceof RegExp) expect(() => logContainerId(p, "app", previous)).toThrow(want);
      else expect(logContainerId(p, "app", previous)).toBe(want);
    });
  }
  test("an ephemeral container's log (kubectl debug, then kubectl logs -c)", () => {
    const p = makePod({
      name: "web",
      spec: { containers: [{ name: "app" }], ephemeralContainers: [{ name: "debugger" }] },
      status: { ephemeralContainerStatuses: [{ name: "debugger", image: "x", imageID: "", ready: false, restartCount: 0, state: { running: { startedAt: "t" } }, containerID: "containerd://eph" }] },
    });
    expect(logContainerId(p, "debugger", false)).toBe("eph");
  });

  test("no status for the container yet", () => {
    const p = makePod({ name: "web", container: { name: "app" }, status: {} });
    expect(() => logContainerId(p, "app", false)).toThrow(/container "app" in pod "web" is not available/);
  });
});

describe("stream options of exec and attach (remotecommand NewOptions)", () => {
  const cases: [string, string, Record<string, boolean> | RegExp][] = [
    ["kubectl's names", "stdin=true&stdout=true&stderr=true", { stdin: true, stdout: true, stderr: true, tty: false }],
    ["the short names", "input=1&output=1&error=1", { stdin: true, stdout: true, stderr: true, tty: false }],
    ["a TTY merges stderr into stdout", "stdin=true&stdout=true&stderr=true&tty=true", { stdin: true, stdout: true, stderr: false, tty: true }],
    ["no stream at all", "tty=true", /you must specify at least 1 of stdin, stdout, stderr/],
  ];
  for (const [name, q, want] of cases) {
    test(name, () => {
      if (want instanceof RegExp) expect(() => streamOptions(new URLSearchParams(q))).toThrow(want);
      else expect(streamOptions(new URLSearchParams(q))).toEqual(want as never);
    });
  }
});
