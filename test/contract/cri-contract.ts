/**
 * The CRI behaviours bunlet relies on, as one suite that runs against the fake CRI and against a
 * real containerd 1.6 (same assertions), so the fake cannot drift from the real thing. Each target
 * provides an endpoint and its image names; the programs below are what the test containers run
 * (the fake scripts them, containerd runs them in busybox).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import {
  ContainerEventType,
  ContainerState,
  type ContainerEventResponse,
  createCriClient,
  GrpcCode,
  NamespaceMode,
  PodSandboxState,
  type CriClient,
} from "../../src/cri/index.ts";
import { callError } from "../fake-cri/fixtures.ts";
import { waitFor } from "../harness/wait.ts";
import { podKit, text, waitForContainerState, type PodKit } from "./helpers.ts";

export interface ContractTarget {
  endpoint: string;
  images: { busybox: string; pause: string };
  /** false for containerd 1.6, which answers GetContainerEvents with UNIMPLEMENTED. */
  eventsSupported: boolean;
  /**
   * Resolves once the runtime has registered an event stream. Without it the suite keeps creating
   * sandboxes until the stream reports the creation of one of them.
   */
  eventStreamOpen?: () => Promise<void>;
  stop(): Promise<void>;
}

/** What the contract's containers and execs run. */
export const programs = {
  sleep: ["sleep", "3600"],
  exit3: ["sh", "-c", "exit 3"],
  succeed: ["true"],
  trapTerm: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.1; done"],
  execOutput: ["sh", "-c", "echo out; echo err >&2; exit 3"],
  execSlow: ["sleep", "5"],
};

const MISSING_ID = "f".repeat(64);

export function criContract(name: string, setup: () => Promise<ContractTarget>): void {
  describe(`CRI contract: ${name}`, () => {
    let target: ContractTarget;
    let client: CriClient;
    let kit: PodKit;
    beforeAll(async () => {
      target = await setup();
      client = createCriClient({ endpoint: target.endpoint });
      kit = podKit(() => client, target.images.busybox);
    }, 120_000);
    afterAll(async () => {
      client?.close();
      await target?.stop();
      if (kit) rmSync(kit.logRoot, { recursive: true, force: true });
    }, 60_000);

    test("Version speaks CRI v1 and Status reports the runtime and network ready", async () => {
      expect((await client.runtime.version({})).runtimeApiVersion).toBe("v1");
      const conditions = (await client.runtime.status({})).status?.conditions ?? [];
      expect(Object.fromEntries(conditions.map((c) => [c.type, c.status]))).toEqual({ RuntimeReady: true, NetworkReady: true });
    });

    test("a sandbox is READY with an IP, echoes its metadata, labels, annotations and namespaces", async () => {
      const sb = await kit.sandbox("meta", { labels: { tier: "web" }, annotations: { note: "a=b" }, attempt: 2 });
      const status = (await client.runtime.podSandboxStatus({ podSandboxId: sb.id })).status!;
      expect(status.id).toMatch(/^[0-9a-f]{64}$/);
      expect(status.state).toBe(PodSandboxState.SANDBOX_READY);
      expect(status.network?.ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(status.metadata).toMatchObject({ name: sb.config.metadata!.name, uid: sb.config.metadata!.uid, namespace: "default", attempt: 2 });
      expect(status.labels).toEqual(sb.config.labels!);
      expect(status.annotations).toEqual({ note: "a=b" });
      expect(status.linux?.namespaces?.options).toMatchObject({ network: NamespaceMode.POD, pid: NamespaceMode.CONTAINER, ipc: NamespaceMode.POD });
      expect(status.createdAt).toBeGreaterThan(0n);
      const listed = (await client.runtime.listPodSandbox({ filter: { id: sb.id } })).items;
      expect(listed.map((s) => [s.id, s.state, s.labels, s.annotations])).toEqual([[sb.id, PodSandboxState.SANDBOX_READY, sb.config.labels!, { note: "a=b" }]]);
    });

    test("a host-network sandbox has no IP and reports network namespace NODE", async () => {
      const sb = await kit.sandbox("host", { hostNetwork: true });
      const status = (await client.runtime.podSandboxStatus({ podSandboxId: sb.id })).status!;
      expect(status.network?.ip).toBe("");
      expect(status.linux?.namespaces?.options?.network).toBe(NamespaceMode.NODE);
    });

    test("stopping a sandbox is idempotent, makes it NOTREADY without an IP, SIGKILLs running containers and leaves created ones", async () => {
      const sb = await kit.sandbox("stop");
      const running = await kit.container(sb, "running", programs.sleep, { start: true });
      const created = await kit.container(sb, "created", programs.sleep);
      await client.runtime.stopPodSandbox({ podSandboxId: sb.id });
      await client.runtime.stopPodSandbox({ podSandboxId: sb.id });
      const status = (await client.runtime.podSandboxStatus({ podSandboxId: sb.id })).status!;
      expect([status.state, status.network?.ip]).toEqual([PodSandboxState.SANDBOX_NOTREADY, ""]);
      expect((await client.runtime.containerStatus({ containerId: running })).status).toMatchObject({
        state: ContainerState.CONTAINER_EXITED,
        exitCode: 137,
        reason: "Error",
      });
      expect((await client.runtime.containerStatus({ containerId: created })).status?.state).toBe(ContainerState.CONTAINER_CREATED);
    });

    test("removing a sandbox (even a READY one) removes its containers; removing again succeeds", async () => {
      const sb = await kit.sandbox("remove");
      const c = await kit.container(sb, "app", programs.sleep, { start: true });
      await client.runtime.removePodSandbox({ podSandboxId: sb.id });
      await client.runtime.removePodSandbox({ podSandboxId: sb.id });
      expect((await client.runtime.listPodSandbox({ filter: { id: sb.id } })).items).toEqual([]);
      expect(await callError(client.runtime.podSandboxStatus({ podSandboxId: sb.id }))).toMatchObject({ code: GrpcCode.NOT_FOUND });
      expect(await callError(client.runtime.containerStatus({ containerId: c }))).toMatchObject({ code: GrpcCode.NOT_FOUND });
    });

    test("a container goes CREATED → RUNNING → EXITED with its fields filled as containerd fills them", async () => {
      const sb = await kit.sandbox("life");
      const id = await kit.container(sb, "app", programs.sleep, { labels: { role: "main" }, annotations: { "a/b": "c" }, attempt: 1 });
      const image = (await client.image.imageStatus({ image: { image: target.images.busybox } })).image!;
      const created = (await client.runtime.containerStatus({ containerId: id })).status!;
      expect(created).toMatchObject({ id, state: ContainerState.CONTAINER_CREATED, startedAt: 0n, finishedAt: 0n, exitCode: 0, reason: "", message: "" });
      expect(created.metadata).toMatchObject({ name: "app", attempt: 1 });
      expect(created.labels).toEqual({ "io.kubernetes.container.name": "app", role: "main" });
      expect(created.annotations).toEqual({ "a/b": "c" });
      expect(created.logPath).toBe(`${sb.config.logDirectory}/app/1.log`);
      expect(created.image?.image).toBe(image.repoTags[0]);
      expect(created.imageRef).toBe(image.repoDigests[0] ?? image.id);
      await client.runtime.startContainer({ containerId: id });
      const running = (await client.runtime.containerStatus({ containerId: id })).status!;
      expect(running.state).toBe(ContainerState.CONTAINER_RUNNING);
      expect(running.startedAt).toBeGreaterThanOrEqual(running.createdAt);
      await client.runtime.stopContainer({ containerId: id, timeout: 10n });
      await client.runtime.stopContainer({ containerId: id, timeout: 10n });
      const exited = (await client.runtime.containerStatus({ containerId: id })).status!;
      expect(exited).toMatchObject({ state: ContainerState.CONTAINER_EXITED, exitCode: 143, reason: "Error" });
      expect(exited.finishedAt).toBeGreaterThanOrEqual(exited.startedAt);
      await client.runtime.removeContainer({ containerId: id });
      await client.runtime.removeContainer({ containerId: id });
      expect(await callError(client.runtime.containerStatus({ containerId: id }))).toMatchObject({ code: GrpcCode.NOT_FOUND });
    });

    test("exit codes and reasons: a failing process is Error, a clean exit Completed, SIGTERM handled is 0, no grace is 137", async () => {
      const sb = await kit.sandbox("exits");
      const failing = await kit.container(sb, "failing", programs.exit3, { start: true });
      const ok = await kit.container(sb, "ok", programs.succeed, { start: true });
      const trap = await kit.container(sb, "trap", programs.trapTerm, { start: true });
      const killed = await kit.container(sb, "killed", programs.sleep, { start: true });
      expect(await waitForContainerState(client, failing, ContainerState.CONTAINER_EXITED)).toMatchObject({ exitCode: 3, reason: "Error" });
      expect(await waitForContainerState(client, ok, ContainerState.CONTAINER_EXITED)).toMatchObject({ exitCode: 0, reason: "Completed" });
      await client.runtime.stopContainer({ containerId: trap, timeout: 10n });
      expect((await client.runtime.containerStatus({ containerId: trap })).status).toMatchObject({ exitCode: 0, reason: "Completed" });
      await client.runtime.stopContainer({ containerId: killed, timeout: 0n });
      expect((await client.runtime.containerStatus({ containerId: killed })).status).toMatchObject({ exitCode: 137, reason: "Error" });
    });

    test("removing a running container stops and removes it", async () => {
      const sb = await kit.sandbox("rmrunning");
      const id = await kit.container(sb, "app", programs.sleep, { start: true });
      await client.runtime.removeContainer({ containerId: id });
      expect((await client.runtime.listContainers({ filter: { podSandboxId: sb.id } })).containers).toEqual([]);
    });

    test("list filters: id prefix, sandbox id, state and label selector", async () => {
      const sb = await kit.sandbox("filters", { labels: { filtered: "yes" } });
      const other = await kit.sandbox("filters-other");
      const a = await kit.container(sb, "a", programs.sleep, { start: true, labels: { pick: "me" } });
      const b = await kit.container(sb, "b", programs.sleep);
      await kit.container(other, "c", programs.sleep);
      const ids = async (filter: Parameters<CriClient["runtime"]["listContainers"]>[0]) =>
        (await client.runtime.listContainers(filter)).containers.map((c) => c.id).sort();
      expect(await ids({ filter: { id: a.slice(0, 12) } })).toEqual([a]);
      expect(await ids({ filter: { podSandboxId: sb.id.slice(0, 12) } })).toEqual([a, b].sort());
      expect(await ids({ filter: { podSandboxId: sb.id, state: { state: ContainerState.CONTAINER_RUNNING } } })).toEqual([a]);
      expect(await ids({ filter: { labelSelector: { pick: "me" } } })).toEqual([a]);
      expect(await ids({ filter: { id: "0123456789abcdefzz" } })).toEqual([]);
      const listed = (await client.runtime.listContainers({ filter: { id: a } })).containers[0];
      expect(listed).toMatchObject({ podSandboxId: sb.id, state: ContainerState.CONTAINER_RUNNING, labels: { pick: "me", "io.kubernetes.container.name": "a" } });
      const sandboxIds = async (filter: Parameters<CriClient["runtime"]["listPodSandbox"]>[0]) =>
        (await client.runtime.listPodSandbox(filter)).items.map((s) => s.id);
      expect(await sandboxIds({ filter: { id: sb.id.slice(0, 12) } })).toEqual([sb.id]);
      expect(await sandboxIds({ filter: { labelSelector: { filtered: "yes" } } })).toEqual([sb.id]);
      await client.runtime.stopPodSandbox({ podSandboxId: other.id });
      expect(await sandboxIds({ filter: { state: { state: PodSandboxState.SANDBOX_NOTREADY }, labelSelector: { "io.kubernetes.pod.uid": other.config.metadata!.uid! } } })).toEqual([other.id]);
    });

    test("unknown ids are NOT_FOUND; removing unknown ids succeeds", async () => {
      const r = client.runtime;
      for (const call of [
        () => r.containerStatus({ containerId: MISSING_ID }),
        () => r.podSandboxStatus({ podSandboxId: MISSING_ID }),
        () => r.stopContainer({ containerId: MISSING_ID, timeout: 1n }),
        () => r.stopPodSandbox({ podSandboxId: MISSING_ID }),
        () => r.startContainer({ containerId: MISSING_ID }),
        () => r.execSync({ containerId: MISSING_ID, cmd: ["true"] }),
        () => r.updateContainerResources({ containerId: MISSING_ID }),
        () => r.createContainer({ podSandboxId: MISSING_ID, config: { metadata: { name: "x" }, image: { image: target.images.busybox } } }),
      ]) {
        expect(await callError(call())).toMatchObject({ code: GrpcCode.NOT_FOUND });
      }
      await r.removeContainer({ containerId: MISSING_ID });
      await r.removePodSandbox({ podSandboxId: MISSING_ID });
    });

    test("creating needs the image present and the sandbox running (NOT_FOUND otherwise)", async () => {
      const sb = await kit.sandbox("create");
      expect(await callError(kit.container(sb, "noimage", programs.sleep, { image: "docker.io/library/not-here:1" }))).toMatchObject({ code: GrpcCode.NOT_FOUND });
      await client.runtime.stopPodSandbox({ podSandboxId: sb.id });
      expect(await callError(kit.container(sb, "late", programs.sleep))).toMatchObject({ code: GrpcCode.NOT_FOUND });
    });

    test("names are reserved: the same sandbox or container name and attempt twice is an error", async () => {
      const sb = await kit.sandbox("names");
      expect(await callError(client.runtime.runPodSandbox({ config: sb.config }))).toMatchObject({ code: GrpcCode.UNKNOWN });
      await kit.container(sb, "app", programs.sleep);
      expect(await callError(kit.container(sb, "app", programs.sleep))).toMatchObject({ code: GrpcCode.UNKNOWN });
      await kit.container(sb, "app", programs.sleep, { attempt: 1 });
    });

    test("starting twice fails, and starting in a stopped sandbox leaves the container EXITED with StartError", async () => {
      const sb = await kit.sandbox("start");
      const id = await kit.container(sb, "app", programs.sleep, { start: true });
      expect(await callError(client.runtime.startContainer({ containerId: id }))).toMatchObject({ code: GrpcCode.UNKNOWN });
      const late = await kit.container(sb, "late", programs.sleep);
      await client.runtime.stopPodSandbox({ podSandboxId: sb.id });
      expect(await callError(client.runtime.startContainer({ containerId: late }))).toMatchObject({ code: GrpcCode.UNKNOWN });
      expect((await client.runtime.containerStatus({ containerId: late })).status).toMatchObject({
        state: ContainerState.CONTAINER_EXITED,
        exitCode: 128,
        reason: "StartError",
      });
    });

    test("ExecSync returns stdout, stderr and the exit code; fails when not running or past its timeout", async () => {
      const sb = await kit.sandbox("exec");
      const id = await kit.container(sb, "app", programs.sleep);
      expect(await callError(client.runtime.execSync({ containerId: id, cmd: ["true"] }))).toMatchObject({ code: GrpcCode.UNKNOWN });
      await client.runtime.startContainer({ containerId: id });
      const res = await client.runtime.execSync({ containerId: id, cmd: programs.execOutput, timeout: 10n });
      expect([text(res.stdout), text(res.stderr), res.exitCode]).toEqual(["out\n", "err\n", 3]);
      expect(await callError(client.runtime.execSync({ containerId: id, cmd: programs.execSlow, timeout: 1n }))).toMatchObject({
        code: GrpcCode.DEADLINE_EXCEEDED,
      });
    });

    test("images: status by short name and by id, an empty status for a missing image, removing a missing image succeeds", async () => {
      const byName = (await client.image.imageStatus({ image: { image: target.images.busybox.replace("docker.io/library/", "") } })).image!;
      expect(byName.repoTags).toContain(target.images.busybox);
      expect(byName.id).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(byName.size).toBeGreaterThan(0n);
      expect((await client.image.imageStatus({ image: { image: byName.id } })).image?.id).toBe(byName.id);
      expect((await client.image.imageStatus({ image: { image: "docker.io/library/not-here:1" } })).image).toBeUndefined();
      const all = (await client.image.listImages({})).images.flatMap((i) => i.repoTags);
      expect(all).toEqual(expect.arrayContaining([target.images.busybox, target.images.pause]));
      await client.image.removeImage({ image: { image: "docker.io/library/not-here:1" } });
      expect((await client.image.imageFsInfo({})).imageFilesystems.length).toBeGreaterThan(0);
    });

    test("GetContainerEvents streams sandbox events, or is UNIMPLEMENTED where the runtime has none", async () => {
      const controller = new AbortController();
      const stream = client.runtime.getContainerEvents({}, { signal: controller.signal })[Symbol.asyncIterator]();
      const first = stream.next();
      if (!target.eventsSupported) {
        expect(await callError(first)).toMatchObject({ code: GrpcCode.UNIMPLEMENTED });
        return;
      }
      // A change made before the stream is registered is not reported: with the target's hook the
      // suite waits for the registration, else it makes changes until one is reported.
      await target.eventStreamOpen?.();
      const created = new Map<string, Awaited<ReturnType<PodKit["sandbox"]>>>();
      const creations: ContainerEventResponse[] = [];
      const watching = (async () => {
        for (let next = await first; !next.done; next = await stream.next()) {
          if (next.value.containerEventType === ContainerEventType.CONTAINER_CREATED_EVENT) creations.push(next.value);
        }
      })().catch(() => undefined);
      const event = await waitFor("the stream to report a sandbox's creation", async () => {
        const ours = creations.find((e) => created.has(e.containerId));
        if (ours) return ours;
        const sb = await kit.sandbox("events");
        created.set(sb.id, sb);
        return undefined;
      });
      expect(event.podSandboxStatus?.metadata?.uid).toBe(created.get(event.containerId)!.config.metadata!.uid);
      controller.abort();
      await watching;
    });
  });
}
