import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Container, Pod } from "../../../src/api/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { makeEnvironmentVariables } from "../../../src/runtime/env.ts";
import { SyncError } from "../../../src/runtime/errors.ts";
import { ReasonCache, SyncRecorder } from "../../../src/runtime/result.ts";
import { containerSecurityContext } from "../../../src/runtime/security.ts";
import { lastLogMessage } from "../../../src/runtime/termination-message.ts";
import { TerminationOrdering } from "../../../src/runtime/termination-order.ts";
import { makePod } from "../../fixtures/pods.ts";

const pod = (containers: Container[], over: Partial<Pod["spec"]> = {}): Pod =>
  makePod({ name: "p", namespace: "ns", metadata: { uid: "u1", labels: { b: "2", a: "1" } }, spec: { containers, ...over } });
const ctx = { nodeName: "n1", podIPs: ["10.0.0.2", "fd00::2"], hostIPs: ["192.168.0.1"], cpuCapacityMilli: 4000, memoryCapacity: 2 ** 33 };

describe("container environment", () => {
  test("downward API fields", async () => {
    const c: Container = {
      name: "c",
      env: [
        { name: "UID", valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
        { name: "LABELS", valueFrom: { fieldRef: { fieldPath: "metadata.labels" } } },
        { name: "LABEL_A", valueFrom: { fieldRef: { fieldPath: "metadata.labels['a']" } } },
        { name: "IPS", valueFrom: { fieldRef: { fieldPath: "status.podIPs" } } },
        { name: "HOST", valueFrom: { fieldRef: { fieldPath: "status.hostIP" } } },
      ],
    };
    expect(await makeEnvironmentVariables(pod([c]), c, ctx)).toEqual([
      { name: "UID", value: "u1" },
      { name: "LABELS", value: 'a="1"\nb="2"' },
      { name: "LABEL_A", value: "1" },
      { name: "IPS", value: "10.0.0.2,fd00::2" },
      { name: "HOST", value: "192.168.0.1" },
    ]);
  });

  test("resource fields round up by the divisor and default limits to node capacity", async () => {
    const c: Container = {
      name: "c",
      resources: { requests: { cpu: "250m" } },
      env: [
        { name: "CPU_LIMIT", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } },
        { name: "CPU_REQ_M", valueFrom: { resourceFieldRef: { resource: "requests.cpu", divisor: "1m" } } },
        { name: "MEM_LIMIT_GI", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Gi" } } },
      ],
    };
    expect((await makeEnvironmentVariables(pod([c]), c, ctx)).map((e) => e.value)).toEqual(["4", "250", "8"]);
  });

  test("without an API client any Secret or ConfigMap reference fails the config, optional or not (as the kubelet's)", async () => {
    const optional: Container = { name: "c", env: [{ name: "S", valueFrom: { secretKeyRef: { name: "s", key: "k", optional: true } } }] };
    await expect(makeEnvironmentVariables(pod([optional]), optional, ctx)).rejects.toThrow("couldn't get secret ns/s, no kubeClient defined");
    const required: Container = { name: "c", envFrom: [{ configMapRef: { name: "cm" } }] };
    await expect(makeEnvironmentVariables(pod([required]), required, ctx)).rejects.toThrow(SyncError);
  });
});

describe("runAsNonRoot", () => {
  const c = (sc: Container["securityContext"]): Container => ({ name: "c", securityContext: sc });
  test.each([
    ["runAsUser 0", c({ runAsNonRoot: true, runAsUser: 0 }), { username: "" }, "container's runAsUser breaks non-root policy"],
    ["an image running as root", c({ runAsNonRoot: true }), { uid: 0n, username: "" }, "image will run as root"],
    ["an image with a user name", c({ runAsNonRoot: true }), { username: "nobody" }, "non-numeric user (nobody)"],
  ])("rejects %s", (_n, container, image, message) => {
    expect(() => containerSecurityContext(pod([container]), container, image, "/s")).toThrow(message);
  });

  test("accepts a non-root user and applies the image's uid when none is set", () => {
    const container = c({ runAsNonRoot: true });
    const sc = containerSecurityContext(pod([container]), container, { uid: 1000n, username: "" }, "/s");
    expect(sc.runAsUser).toEqual({ value: 1000n });
  });
});

describe("sync results", () => {
  test("only backoff failures make a backoff error with the earliest expiry", async () => {
    const clock = new FakeClock();
    const rec = new SyncRecorder(() => clock.now());
    await rec.step("StartContainer", "a", async () => {
      throw new SyncError("CrashLoopBackOff", "back-off 10s", 5000);
    }).catch(() => undefined);
    await rec.step("StartContainer", "b", async () => {
      throw new SyncError("ImagePullBackOff", "Back-off pulling", 3000);
    }).catch(() => undefined);
    const err = rec.result().error as SyncError;
    expect(err).toBeInstanceOf(SyncError);
    expect(err.backoffUntil).toBe(3000);
  });

  test("a real failure wins over backoff and lists every failed step", async () => {
    const rec = new SyncRecorder(() => 0);
    await rec.step("StartContainer", "a", async () => {
      throw new SyncError("CrashLoopBackOff", "back-off 10s", 5000);
    }).catch(() => undefined);
    await rec.step("StartContainer", "b", async () => {
      throw new SyncError("ErrImagePull", "not found");
    }).catch(() => undefined);
    const err = rec.result().error as SyncError;
    expect(err).toBeInstanceOf(SyncError);
    expect(err.backoffUntil).toBe(0);
    expect(err!.message).toBe('failed to "StartContainer" for "a" with CrashLoopBackOff: "back-off 10s", failed to "StartContainer" for "b" with ErrImagePull: "not found"');
  });

  test("the reason cache keeps the last start failure until the container starts", () => {
    const cache = new ReasonCache();
    cache.update("u", [{ action: "StartContainer", target: "a", error: { reason: "ErrImagePull", message: "m" }, durationMs: 0 }]);
    expect(cache.get("u", "a")).toEqual({ reason: "ErrImagePull", message: "m" });
    cache.update("u", [{ action: "KillContainer", target: "a", durationMs: 0 }]);
    expect(cache.get("u", "a")?.reason).toBe("ErrImagePull");
    cache.update("u", [{ action: "StartContainer", target: "a", durationMs: 0 }]);
    expect(cache.get("u", "a")).toBeUndefined();
  });
});

describe("sidecar termination ordering", () => {
  test("a sidecar waits for the regular containers and later sidecars, at most its grace period", async () => {
    const clock = new FakeClock();
    const p = pod([{ name: "app" }], { initContainers: [{ name: "s1", restartPolicy: "Always" }, { name: "s2", restartPolicy: "Always" }] });
    const order = new TerminationOrdering(p, ["app", "s1", "s2"], clock);
    const waited: Record<string, number> = {};
    const s1 = order.waitForTurn("s1", 30).then((s) => (waited.s1 = s));
    const s2 = order.waitForTurn("s2", 30).then((s) => (waited.s2 = s));
    expect(await order.waitForTurn("app", 30)).toBe(0);
    await clock.advance(3_000);
    order.containerTerminated("app");
    await s2;
    expect(waited).toEqual({ s2: 3 });
    await clock.advance(30_000);
    await s1;
    expect(waited.s1).toBe(30);
  });
});

describe("termination message from logs", () => {
  test("joins partial lines and keeps the last 2048 bytes", () => {
    const file = join(mkdtempSync(join(tmpdir(), "tm-")), "0.log");
    const lines = ["2026-01-01T00:00:00Z stderr P part ", "2026-01-01T00:00:00Z stderr F one", "2026-01-01T00:00:01Z stdout F two"];
    writeFileSync(file, `${lines.join("\n")}\n`);
    expect(lastLogMessage(file)).toBe("part one\ntwo\n");
    writeFileSync(file, `${Array.from({ length: 100 }, (_, i) => `t stdout F ${"x".repeat(40)}${i}`).join("\n")}\n`);
    expect(Buffer.byteLength(lastLogMessage(file))).toBe(2048);
  });
});
