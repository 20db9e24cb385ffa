// The fake CRI's test controls: what a real runtime does by itself, images, and its bookkeeping.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { ContainerEventType, ContainerState, createCriClient, GrpcCode, PodSandboxState } from "../../src/cri/index.ts";
import { callError, containerConfig, readEvents, sandboxConfig, startFakeCri, type FakeContainer } from "../fake-cri/index.ts";

const BUSYBOX = "docker.io/library/busybox:1.36";
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(options: Parameters<typeof startFakeCri>[0] = {}) {
  const cri = await startFakeCri(options);
  const client = createCriClient({ endpoint: cri.endpoint });
  cleanups.push(() => cri.stop(), () => client.close());
  const pod = async (image = BUSYBOX) => {
    const config = sandboxConfig("p");
    const { podSandboxId } = await client.runtime.runPodSandbox({ config });
    const { containerId } = await client.runtime.createContainer({ podSandboxId, config: containerConfig("c", image, ["sleep", "3600"]), sandboxConfig: config });
    await client.runtime.startContainer({ containerId });
    return { podSandboxId, containerId };
  };
  return { cri, client, pod };
}

describe("runtime-side changes", () => {
  test("a network that is not ready shows in Status and fails pod-network sandboxes only", async () => {
    const { cri, client } = await setup();
    cri.setNetworkReady(false);
    cri.setRuntimeReady(false);
    const conditions = (await client.runtime.status({})).status!.conditions;
    expect(conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["RuntimeReady", false, "ContainerdNotReady"],
      ["NetworkReady", false, "NetworkPluginNotReady"],
    ]);
    expect(await callError(client.runtime.runPodSandbox({ config: sandboxConfig("p") }))).toMatchObject({ code: GrpcCode.UNKNOWN });
    await client.runtime.runPodSandbox({ config: sandboxConfig("h", { hostNetwork: true }) });
  });

  test("a killed sandbox is NOTREADY with a STOPPED event, keeps its IP and leaves its containers running", async () => {
    const { cri, client, pod } = await setup();
    const { podSandboxId, containerId } = await pod();
    const events = readEvents(client);
    await cri.events.whenSubscribers(1);
    cri.killSandbox(podSandboxId);
    const event = await events.next();
    expect([event.containerId, event.containerEventType]).toEqual([podSandboxId, ContainerEventType.CONTAINER_STOPPED_EVENT]);
    const status = (await client.runtime.podSandboxStatus({ podSandboxId })).status!;
    expect(status.state).toBe(PodSandboxState.SANDBOX_NOTREADY);
    expect(status.network?.ip).toMatch(/^10\.244\.0\.\d+$/);
    expect((await client.runtime.containerStatus({ containerId })).status?.state).toBe(ContainerState.CONTAINER_RUNNING);
    events.close();
  });

  test("a container removed behind the agent's back is just gone, without an event", async () => {
    const { cri, client, pod } = await setup();
    const { containerId } = await pod();
    const before = cri.events.history.length;
    cri.removeContainerBehindTheBack(containerId);
    expect(await callError(client.runtime.containerStatus({ containerId }))).toMatchObject({ code: GrpcCode.NOT_FOUND });
    expect((await client.runtime.listContainers({})).containers).toEqual([]);
    expect(cri.events.history.length).toBe(before);
  });

  test("onCreate sees every created container", async () => {
    const { cri, pod } = await setup();
    const seen: FakeContainer[] = [];
    cri.onCreate((c) => seen.push(c));
    const { containerId } = await pod();
    expect(seen.map((c) => [c.id, c.name, c.command])).toEqual([[containerId, "c", ["sleep", "3600"]]]);
  });
});

describe("images", () => {
  test("PullImage fails like containerd for an unknown reference and succeeds once it is pullable", async () => {
    const { cri, client, pod } = await setup();
    const err = await callError(client.image.pullImage({ image: { image: "nginx:1.25" } }));
    expect(err.code).toBe(GrpcCode.UNKNOWN);
    expect(err.detail).toContain('failed to pull and unpack image "docker.io/library/nginx:1.25"');
    cri.setPullable("nginx:1.25", true);
    const { imageRef } = await client.image.pullImage({ image: { image: "nginx:1.25" } });
    const image = (await client.image.imageStatus({ image: { image: "docker.io/library/nginx:1.25" } })).image!;
    expect(image.id).toBe(imageRef);
    expect(image.repoDigests[0]).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    const { containerId } = await pod("nginx:1.25");
    expect((await client.runtime.containerStatus({ containerId })).status?.imageRef).toBe(image.repoDigests[0]);
  });

  test("an image made unpullable fails to pull even when present; a removed image has an empty status", async () => {
    const { cri, client } = await setup();
    cri.setPullable(BUSYBOX, false);
    expect(await callError(client.image.pullImage({ image: { image: BUSYBOX } }))).toMatchObject({ code: GrpcCode.UNKNOWN });
    expect(cri.removeImage(BUSYBOX)).toBe(true);
    expect((await client.image.imageStatus({ image: { image: BUSYBOX } })).image).toBeUndefined();
    expect(cri.state.images.map((i) => i.repoTags)).toEqual([["registry.k8s.io/pause:3.10.2"]]);
  });
});

describe("bookkeeping", () => {
  test("ids come from the injected random source and resolve by unique prefix", async () => {
    let n = 0;
    const { client } = await setup({ random: (size) => new Uint8Array(size).fill(++n) });
    const { podSandboxId } = await client.runtime.runPodSandbox({ config: sandboxConfig("p") });
    expect(podSandboxId).toBe("01".repeat(32));
    expect((await client.runtime.podSandboxStatus({ podSandboxId: "0101" })).status?.id).toBe(podSandboxId);
  });

  test("state is a snapshot: changing it does not change the runtime", async () => {
    const { cri, pod } = await setup();
    const { containerId } = await pod();
    const snapshot = cri.state.container(containerId)!;
    snapshot.state = ContainerState.CONTAINER_EXITED;
    expect(cri.state.container(containerId)?.state).toBe(ContainerState.CONTAINER_RUNNING);
  });

  test("a failure planned for GetContainerEvents ends the next stream with that code", async () => {
    const { cri, client } = await setup();
    cri.failNext("GetContainerEvents", GrpcCode.UNAVAILABLE);
    expect((await readEvents(client).ended)?.code).toBe(GrpcCode.UNAVAILABLE);
    const second = readEvents(client);
    await cri.events.whenSubscribers(1);
    second.close();
  });

  test("refuse(true) takes the socket away until refuse(false); stop() removes the temp dir", async () => {
    const { cri, client } = await setup();
    await cri.refuse(true);
    expect(existsSync(cri.socketPath)).toBe(false);
    expect(await callError(client.runtime.version({}))).toMatchObject({ code: GrpcCode.UNAVAILABLE });
    await cri.refuse(false);
    expect(existsSync(cri.socketPath)).toBe(true);
    await cri.stop();
    expect(existsSync(dirname(cri.socketPath))).toBe(false);
  });
});
