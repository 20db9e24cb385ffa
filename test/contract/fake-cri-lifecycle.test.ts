import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  ContainerEventType,
  ContainerState,
  createCriClient,
  GrpcCode,
  PodSandboxState,
  type CriClient,
  type TransportKind,
} from "../../src/cri/index.ts";
import { callError, containerConfig, readEvents, sandboxConfig } from "../fake-cri/fixtures.ts";
import { startFakeCri, type FakeCri } from "../fake-cri/index.ts";

const BUSYBOX = "docker.io/library/busybox:1.36";

for (const transport of ["h2", "connect", "grpc-js"] as TransportKind[]) {
  describe(`fake CRI over ${transport}`, () => {
    let cri: FakeCri;
    let client: CriClient;
    beforeEach(async () => {
      cri = await startFakeCri();
      client = createCriClient({ endpoint: cri.endpoint, transport });
    });
    afterEach(async () => {
      client.close();
      await cri.stop();
    });

    async function runningContainer(command = ["sleep", "3600"]) {
      const config = sandboxConfig("web");
      const { podSandboxId } = await client.runtime.runPodSandbox({ config });
      const { containerId } = await client.runtime.createContainer({
        podSandboxId,
        config: containerConfig("app", BUSYBOX, command),
        sandboxConfig: config,
      });
      await client.runtime.startContainer({ containerId });
      return { podSandboxId, containerId, config };
    }

    test("a container goes CREATED → RUNNING → EXITED with the times and exit code set", async () => {
      const { podSandboxId, containerId, config } = await runningContainer();
      const running = (await client.runtime.containerStatus({ containerId })).status!;
      expect(running.state).toBe(ContainerState.CONTAINER_RUNNING);
      expect(running.startedAt).toBeGreaterThan(running.createdAt);
      expect(running.logPath).toBe(`${config.logDirectory}/app/0.log`);
      cri.exitContainer(containerId, 2);
      const exited = (await client.runtime.containerStatus({ containerId })).status!;
      expect(exited).toMatchObject({ state: ContainerState.CONTAINER_EXITED, exitCode: 2, reason: "Error" });
      expect(exited.finishedAt).toBeGreaterThan(exited.startedAt);
      expect(cri.state.container(containerId)?.podSandboxId).toBe(podSandboxId);
    });

    test("every call is recorded in order with its request", async () => {
      await runningContainer();
      expect(cri.callNames()).toEqual(["RunPodSandbox", "CreateContainer", "StartContainer"]);
      expect(cri.calls[1].request).toMatchObject({ config: { metadata: { name: "app" } } });
      cri.clearCalls();
      await client.image.imageStatus({ image: { image: BUSYBOX } });
      expect(cri.callNames()).toEqual(["ImageStatus"]);
    });

    test("state changes are streamed as ContainerEventResponses with the sandbox and its containers", async () => {
      const events = readEvents(client);
      await cri.events.whenSubscribers(1);
      const { podSandboxId, containerId } = await runningContainer();
      const seen = [];
      for (let i = 0; i < 4; i++) seen.push(await events.next());
      expect(seen.map((e) => [e.containerId, e.containerEventType])).toEqual([
        [podSandboxId, ContainerEventType.CONTAINER_CREATED_EVENT],
        [podSandboxId, ContainerEventType.CONTAINER_STARTED_EVENT],
        [containerId, ContainerEventType.CONTAINER_CREATED_EVENT],
        [containerId, ContainerEventType.CONTAINER_STARTED_EVENT],
      ]);
      cri.exitContainer(containerId, 0);
      const stopped = await events.next();
      expect(stopped.containerEventType).toBe(ContainerEventType.CONTAINER_STOPPED_EVENT);
      expect(stopped.podSandboxStatus?.metadata?.name).toBe("web");
      expect(stopped.containersStatuses.map((s) => [s.id, s.state, s.exitCode, s.reason])).toEqual([
        [containerId, ContainerState.CONTAINER_EXITED, 0, "Completed"],
      ]);
      expect(stopped.createdAt).toBeGreaterThanOrEqual(seen[3].createdAt);
      events.close();
    });

    test("removing a sandbox reports its containers deleted, then the sandbox without a status", async () => {
      const { podSandboxId, containerId } = await runningContainer();
      await client.runtime.stopPodSandbox({ podSandboxId });
      const events = readEvents(client);
      await cri.events.whenSubscribers(1);
      await client.runtime.removePodSandbox({ podSandboxId });
      const containerDeleted = await events.next();
      const sandboxDeleted = await events.next();
      expect([containerDeleted.containerId, containerDeleted.containerEventType]).toEqual([containerId, ContainerEventType.CONTAINER_DELETED_EVENT]);
      expect(containerDeleted.podSandboxStatus?.state).toBe(PodSandboxState.SANDBOX_NOTREADY);
      expect([sandboxDeleted.containerId, sandboxDeleted.containerEventType]).toEqual([podSandboxId, ContainerEventType.CONTAINER_DELETED_EVENT]);
      expect(sandboxDeleted.podSandboxStatus).toBeUndefined();
      expect(sandboxDeleted.containersStatuses).toEqual([]);
      events.close();
    });

    test("unknown ids are NOT_FOUND for status and stop calls", async () => {
      const missing = "f".repeat(64);
      expect(await callError(client.runtime.containerStatus({ containerId: missing }))).toMatchObject({ code: GrpcCode.NOT_FOUND });
      expect(await callError(client.runtime.podSandboxStatus({ podSandboxId: missing }))).toMatchObject({ code: GrpcCode.NOT_FOUND });
      expect(await callError(client.runtime.stopContainer({ containerId: missing }))).toMatchObject({ code: GrpcCode.NOT_FOUND });
    });
  });
}
