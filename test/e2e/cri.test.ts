/**
 * The CRI client against a real containerd (started by the harness with its own root, state and
 * socket): the full life of one sandbox and one container, and nothing left behind.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ContainerState,
  createCriClient,
  GrpcCode,
  isCriError,
  NamespaceMode,
  PodSandboxState,
  type CriClient,
} from "../../src/cri/index.ts";
import { BUSYBOX_IMAGE } from "../../src/containerd/index.ts";
import { startTestContainerd, type TestContainerd } from "../harness/containerd.ts";
import { watchedLogger } from "../integration/pleg/helpers.ts";

let ctd: TestContainerd;
const log = watchedLogger();
let logDir: string;
const clients: Record<string, CriClient> = {};

beforeAll(async () => {
  ctd = await startTestContainerd({ name: "cri-e2e", log, restartBackoff: { initialMs: 3000, maxMs: 30_000 } });
  logDir = mkdtempSync(join(tmpdir(), "bunlet-cri-logs-"));
  clients.h2 = createCriClient({ endpoint: ctd.endpoint, transport: "h2" });
  clients["grpc-js"] = createCriClient({ endpoint: ctd.endpoint, transport: "grpc-js" });
  clients.connect = createCriClient({ endpoint: ctd.endpoint, transport: "connect" });
}, 120_000);

afterAll(async () => {
  for (const c of Object.values(clients)) c.close();
  await ctd?.stop();
  rmSync(logDir, { recursive: true, force: true });
}, 60_000);

for (const transport of ["h2", "grpc-js", "connect"]) {
  describe(`CRI over ${transport} against containerd`, () => {
    test("Version and Status answer", async () => {
      const cri = clients[transport];
      const v = await cri.runtime.version({});
      expect(v.runtimeName).toBe("containerd");
      expect(v.runtimeApiVersion).toBe("v1");
      const s = await cri.runtime.status({});
      const ready = Object.fromEntries((s.status?.conditions ?? []).map((c) => [c.type, c.status]));
      expect(ready.RuntimeReady).toBe(true);
      expect(ready.NetworkReady).toBe(true);
    });

    test("a sandbox with a busybox container runs, execs, stops and is removed without leftovers", async () => {
      const cri = clients[transport];
      const uid = `uid-${transport}-${Date.now()}`;
      const sandboxConfig = {
        metadata: { name: `e2e-${transport}`, namespace: "default", uid, attempt: 0 },
        hostname: `e2e-${transport}`,
        logDirectory: join(logDir, uid),
        labels: { "io.kubernetes.pod.uid": uid, "io.kubernetes.pod.name": `e2e-${transport}`, "io.kubernetes.pod.namespace": "default" },
        linux: { securityContext: { namespaceOptions: { network: NamespaceMode.POD, pid: NamespaceMode.CONTAINER, ipc: NamespaceMode.POD } } },
      };
      const { podSandboxId } = await cri.runtime.runPodSandbox({ config: sandboxConfig });
      const sb = await cri.runtime.podSandboxStatus({ podSandboxId });
      expect(sb.status?.state).toBe(PodSandboxState.SANDBOX_READY);
      expect(sb.status?.network?.ip).toMatch(/^10\.89\./);

      const { containerId } = await cri.runtime.createContainer({
        podSandboxId,
        sandboxConfig,
        config: {
          metadata: { name: "main", attempt: 0 },
          image: { image: BUSYBOX_IMAGE },
          command: ["sleep", "3600"],
          logPath: "main/0.log",
          labels: { "io.kubernetes.container.name": "main", "io.kubernetes.pod.uid": uid },
        },
      });
      await cri.runtime.startContainer({ containerId });
      const exec = await cri.runtime.execSync({ containerId, cmd: ["sh", "-c", "echo hello from $(hostname)"], timeout: 10n });
      expect(exec.exitCode).toBe(0);
      expect(new TextDecoder().decode(exec.stdout).trim()).toBe(`hello from e2e-${transport}`);
      const st = await cri.runtime.containerStatus({ containerId });
      expect(st.status?.state).toBe(ContainerState.CONTAINER_RUNNING);
      expect(st.status?.labels["io.kubernetes.container.name"]).toBe("main");

      await cri.runtime.stopContainer({ containerId, timeout: 1n });
      const stopped = await cri.runtime.containerStatus({ containerId });
      expect(stopped.status?.state).toBe(ContainerState.CONTAINER_EXITED);
      await cri.runtime.removeContainer({ containerId });
      await cri.runtime.stopPodSandbox({ podSandboxId });
      await cri.runtime.removePodSandbox({ podSandboxId });

      const left = await cri.runtime.listPodSandbox({ filter: { labelSelector: { "io.kubernetes.pod.uid": uid } } });
      expect(left.items).toHaveLength(0);
      const leftContainers = await cri.runtime.listContainers({ filter: { labelSelector: { "io.kubernetes.pod.uid": uid } } });
      expect(leftContainers.containers).toHaveLength(0);
      try {
        await cri.runtime.containerStatus({ containerId });
        throw new Error("expected NOT_FOUND");
      } catch (err) {
        expect(isCriError(err, GrpcCode.NOT_FOUND)).toBe(true);
      }
    });
  });
}

test("GetContainerEvents on containerd 1.6 is UNIMPLEMENTED (the Evented PLEG falls back)", async () => {
  const cri = clients.h2;
  let code: GrpcCode | undefined;
  try {
    for await (const _ of cri.runtime.getContainerEvents({})) break;
  } catch (err) {
    if (isCriError(err)) code = err.code;
  }
  expect(code).toBe(GrpcCode.UNIMPLEMENTED);
});

test("a dead runtime is UNAVAILABLE and the client recovers when it comes back", async () => {
  const cri = clients.h2;
  await cri.runtime.version({});
  const pid = ctd.managed.pid;
  expect(pid).toBeDefined();
  process.kill(pid!, "SIGKILL");
  // The managed containerd logs the exit, then waits its restart backoff (3 s here) before
  // starting a new one: a call made after the line meets a dead socket.
  await log.when((l) => l.msg === "containerd exited unexpectedly; restarting it", 10_000);
  const dead = await cri.runtime.version({}, { timeoutMs: 1000 }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isCriError(dead, GrpcCode.UNAVAILABLE)).toBe(true);
  // The same client answers again once the new containerd is ready.
  await log.when((l) => l.msg === "containerd is ready again", 30_000);
  expect((await cri.runtime.version({})).runtimeName).toBe("containerd");
  expect(ctd.managed.restarts).toBe(1);
});
