import { afterEach, describe, expect, test } from "bun:test";
import { ContainerEventType, createCriClient, GrpcCode, type CriClient, type TransportKind } from "../../src/cri/index.ts";
import { FakeClock } from "../../src/lib/testing.ts";
import { callError, containerConfig, readEvents, sandboxConfig } from "../fake-cri/fixtures.ts";
import { startFakeCri } from "../fake-cri/index.ts";
import { waitFor } from "../harness/wait.ts";

const BUSYBOX = "docker.io/library/busybox:1.36";
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(transport: TransportKind = "h2") {
  const clock = new FakeClock();
  const cri = await startFakeCri({ clock });
  const client = createCriClient({ endpoint: cri.endpoint, transport });
  cleanups.push(() => cri.stop(), () => client.close());
  return { clock, cri, client };
}

/** Retries `fn` until it succeeds (the client reconnecting with its own backoff) or 5 s pass. */
function eventually<T>(fn: () => Promise<T>): Promise<T> {
  return waitFor("the call to succeed once the client reconnected", fn, 5_000);
}

describe("GetContainerEvents faults", () => {
  test("answers UNIMPLEMENTED like containerd 1.6 when told to", async () => {
    const { cri, client } = await setup();
    cri.events.unimplemented = true;
    const events = readEvents(client);
    expect((await events.ended)?.code).toBe(GrpcCode.UNIMPLEMENTED);
  });

  test("drops the stream with UNAVAILABLE after N events", async () => {
    const { cri, client } = await setup("connect");
    cri.events.dropAfter = 3;
    const events = readEvents(client);
    await cri.events.whenSubscribers(1);
    await client.runtime.runPodSandbox({ config: sandboxConfig("a") });
    await client.runtime.runPodSandbox({ config: sandboxConfig("b") });
    const got = [await events.next(), await events.next(), await events.next()];
    expect(got.map((e) => e.containerEventType)).toEqual([
      ContainerEventType.CONTAINER_CREATED_EVENT,
      ContainerEventType.CONTAINER_STARTED_EVENT,
      ContainerEventType.CONTAINER_CREATED_EVENT,
    ]);
    expect((await events.ended)?.code).toBe(GrpcCode.UNAVAILABLE);
    expect(cri.events.subscribers).toBe(0);
  });
});

describe("call faults", () => {
  test("failNext fails exactly the next N calls of that method with the given code", async () => {
    const { cri, client } = await setup();
    cri.failNext("RunPodSandbox", GrpcCode.RESOURCE_EXHAUSTED, 2, "no room");
    const config = sandboxConfig("p");
    expect(await callError(client.runtime.runPodSandbox({ config }))).toMatchObject({ code: GrpcCode.RESOURCE_EXHAUSTED, detail: "no room" });
    expect(await callError(client.runtime.runPodSandbox({ config }))).toMatchObject({ code: GrpcCode.RESOURCE_EXHAUSTED });
    await client.runtime.runPodSandbox({ config });
    expect(cri.callNames()).toEqual(["RunPodSandbox", "RunPodSandbox", "RunPodSandbox"]);
    expect(cri.state.sandboxes).toHaveLength(1);
  });

  test("delay holds a call until the fake's clock passes it", async () => {
    const { clock, cri, client } = await setup();
    cri.delay("Version", 30_000);
    let answered = false;
    const call = client.runtime.version({}).then((v) => {
      answered = true;
      return v;
    });
    await cri.whenCalled("Version");
    await clock.advance(29_999);
    await client.runtime.status({});
    expect(answered).toBe(false);
    await clock.advance(1);
    expect((await call).runtimeName).toBe("fake-cri");
  });

  test("a delayed call past the client's deadline fails with DEADLINE_EXCEEDED", async () => {
    const { cri, client } = await setup();
    cri.delay("*", 60_000);
    expect(await callError(client.runtime.listContainers({}, { timeoutMs: 50 }))).toMatchObject({ code: GrpcCode.DEADLINE_EXCEEDED });
  });
});

for (const transport of ["h2", "connect", "grpc-js"] as TransportKind[]) {
  test(`the runtime's message comes back as it was sent, whatever its characters (${transport})`, async () => {
    const { cri, client } = await setup(transport);
    const message = 'failed to create "c": disk 100% full, naïve café, 日本 — tab\there';
    cri.failNext("Version", GrpcCode.FAILED_PRECONDITION, 1, message);
    expect(await callError(client.runtime.version({}))).toMatchObject({ code: GrpcCode.FAILED_PRECONDITION, detail: message });
  });
}

for (const transport of ["h2", "connect", "grpc-js"] as TransportKind[]) {
  describe(`runtime going away (${transport})`, () => {
    test("refused connections are UNAVAILABLE and the client recovers when it listens again", async () => {
      const { clock, cri, client } = await setup(transport);
      await client.runtime.version({});
      const back = cri.refuseConnections(10_000);
      expect(await callError(client.runtime.version({}))).toMatchObject({ code: GrpcCode.UNAVAILABLE });
      await clock.advance(10_000);
      await back;
      expect((await eventually(() => client.runtime.version({}))).runtimeName).toBe("fake-cri");
    });

    test("restart ends open event streams and keeps the state", async () => {
      const { cri, client } = await setup(transport);
      const { podSandboxId } = await client.runtime.runPodSandbox({ config: sandboxConfig("p") });
      const events = readEvents(client);
      await cri.events.whenSubscribers(1);
      await cri.restart();
      expect((await events.ended)?.code).toBeOneOf([GrpcCode.UNAVAILABLE, GrpcCode.INTERNAL, GrpcCode.CANCELLED]);
      const status = await eventually(() => client.runtime.podSandboxStatus({ podSandboxId }));
      expect(status.status?.id).toBe(podSandboxId);
    });
  });
}

describe("what runs in containers", () => {
  async function started(client: CriClient, command: string[]) {
    const config = sandboxConfig("p");
    const { podSandboxId } = await client.runtime.runPodSandbox({ config });
    const { containerId } = await client.runtime.createContainer({ podSandboxId, config: containerConfig("c", BUSYBOX, command), sandboxConfig: config });
    await client.runtime.startContainer({ containerId });
    return containerId;
  }

  test("a container behaviour exits the container by itself after the given time", async () => {
    const { clock, cri, client } = await setup();
    cri.setContainerBehavior({ command: ["sh", "-c"] }, { afterMs: 1000, exitCode: 7 });
    const containerId = await started(client, ["sh", "-c", "exit 7"]);
    const other = await started(client, ["sleep", "3600"]);
    await clock.advance(1000);
    expect((await client.runtime.containerStatus({ containerId })).status).toMatchObject({ state: 2, exitCode: 7, reason: "Error" });
    expect((await client.runtime.containerStatus({ containerId: other })).status?.state).toBe(1);
  });

  test("an OOM exit reports OOMKilled", async () => {
    const { cri, client } = await setup();
    const containerId = await started(client, ["sleep", "3600"]);
    cri.exitContainer(containerId, 137, { oom: true });
    expect((await client.runtime.containerStatus({ containerId })).status?.reason).toBe("OOMKilled");
  });

  test("stopping with a grace period uses the behaviour's stop exit code, and cancels its exit timer", async () => {
    const { clock, cri, client } = await setup();
    cri.setContainerBehavior({ name: "c" }, { afterMs: 5000, exitCode: 3, stopExitCode: 0 });
    const containerId = await started(client, ["sleep", "3600"]);
    await client.runtime.stopContainer({ containerId, timeout: 30n });
    await clock.advance(5000);
    expect((await client.runtime.containerStatus({ containerId })).status).toMatchObject({ exitCode: 0, reason: "Completed" });
  });

  test("ExecSync returns scripted output and exit code, echo by default, DEADLINE_EXCEEDED past its timeout", async () => {
    const { clock, cri, client } = await setup();
    const containerId = await started(client, ["sleep", "3600"]);
    cri.setExecResult(["cat", "/ready"], { stdout: "ok", stderr: "warn", exitCode: 4 });
    const scripted = await client.runtime.execSync({ containerId, cmd: ["cat", "/ready"] });
    expect([new TextDecoder().decode(scripted.stdout), new TextDecoder().decode(scripted.stderr), scripted.exitCode]).toEqual(["ok", "warn", 4]);
    const echo = await client.runtime.execSync({ containerId, cmd: ["echo", "hi", "there"] });
    expect(new TextDecoder().decode(echo.stdout)).toBe("hi there\n");
    cri.setExecResult(["slow"], { delayMs: 10_000 });
    const slow = client.runtime.execSync({ containerId, cmd: ["slow"], timeout: 1n });
    await cri.whenCalled("ExecSync", 3);
    await clock.advance(1000);
    expect(await callError(slow)).toMatchObject({ code: GrpcCode.DEADLINE_EXCEEDED });
  });
});
