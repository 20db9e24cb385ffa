import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readlinkSync, writeFileSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { ContainerState, NamespaceMode, PodSandboxState, Protocol, SecurityProfile_ProfileType } from "../../../src/cri/index.ts";
import { hashContainer } from "../../../src/container/index.ts";
import { BUSYBOX, c, uniquePod, startHarness, type Harness } from "./harness.ts";

let h: Harness;
beforeEach(async () => (h = await startHarness()));
afterEach(() => h.close());

describe("syncPod creates a new pod", () => {
  test("the call sequence is the kubelet's: sandbox, its status, then image check, create and start per container", async () => {
    const pod = uniquePod({ containers: [c("a"), c("b")] });
    const result = await h.sync(pod);
    expect(result.error).toBeUndefined();
    expect(h.calls()).toEqual([
      "RunPodSandbox",
      "PodSandboxStatus",
      "ImageStatus", "ImageStatus", "CreateContainer", "StartContainer",
      "ImageStatus", "ImageStatus", "CreateContainer", "StartContainer",
    ]);
    expect(result.steps.map((s) => `${s.action}:${s.target}`)).toEqual([
      // As upstream, a new pod goes through killPod first (with nothing to kill).
      `KillPodSandbox:${pod.metadata.uid}`,
      `CreatePodSandbox:${pod.metadata.name}_ns(${pod.metadata.uid})`,
      "StartContainer:a",
      "StartContainer:b",
    ]);
    expect(h.fake.state.containers.map((x) => [x.name, x.state])).toEqual([
      ["a", ContainerState.CONTAINER_RUNNING],
      ["b", ContainerState.CONTAINER_RUNNING],
    ]);
  });

  test("RunPodSandbox is timed and its failures counted by runtime handler (kubelet_run_podsandbox_*)", async () => {
    h.fake.failNext("RunPodSandbox", 2);
    await h.sync(uniquePod({ containers: [c("a")] }));
    await h.sync(uniquePod({ containers: [c("a")] }));
    expect((await h.metrics.runPodSandboxErrors.get()).values).toEqual([{ labels: { runtime_handler: "" }, value: 1 }]);
    const count = (await h.metrics.runPodSandboxDuration.get()).values.find((v) => v.metricName === "kubelet_run_podsandbox_duration_seconds_count");
    expect(count).toMatchObject({ labels: { runtime_handler: "" }, value: 2 });
  });

  test("a second sync of a running pod does nothing", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    const result = await h.sync(pod);
    expect(h.calls()).toEqual([]);
    expect(result.error).toBeUndefined();
  });

  test("the sandbox config carries attempt, hostname, log dir, DNS, ports, labels and annotations", async () => {
    const pod = uniquePod(
      {
        containers: [c("web", { ports: [{ containerPort: 80, hostPort: 8080, protocol: "TCP", name: "http" }, { containerPort: 53, protocol: "UDP" }] })],
        dnsConfig: { nameservers: ["1.1.1.1"], searches: ["svc.local"], options: [{ name: "ndots", value: "5" }, { name: "edns0" }] },
        securityContext: { sysctls: [{ name: "net/ipv4/ip_forward", value: "1" }] },
      },
      { labels: { app: "web" }, annotations: { note: "x" } },
    );
    await h.sync(pod);
    const sb = h.fake.state.sandboxes[0];
    const cfg = sb.config;
    expect(cfg.metadata).toMatchObject({ name: pod.metadata.name, namespace: "ns", uid: pod.metadata.uid, attempt: 0 });
    expect(cfg.hostname).toBe(pod.metadata.name!);
    expect(cfg.logDirectory).toBe(join(h.dirs.podLogsDir, `ns_${pod.metadata.name}_${pod.metadata.uid}`));
    expect(statSync(cfg.logDirectory).isDirectory()).toBe(true);
    expect(cfg.dnsConfig).toMatchObject({
      servers: ["10.0.0.10", "1.1.1.1"],
      searches: ["example.org", "svc.local"],
      options: ["ndots:5", "edns0"],
    });
    expect(cfg.portMappings.map((p) => [p.protocol, p.containerPort, p.hostPort])).toEqual([
      [Protocol.TCP, 80, 8080],
      [Protocol.UDP, 53, 0],
    ]);
    expect(cfg.labels).toEqual({
      app: "web",
      "io.kubernetes.pod.name": pod.metadata.name!,
      "io.kubernetes.pod.namespace": "ns",
      "io.kubernetes.pod.uid": pod.metadata.uid!,
    });
    expect(cfg.annotations).toEqual({ note: "x" });
    expect(cfg.linux?.sysctls).toEqual({ "net.ipv4.ip_forward": "1" });
    expect(cfg.linux?.securityContext?.namespaceOptions).toMatchObject({ network: NamespaceMode.POD, pid: NamespaceMode.CONTAINER });
    expect(sb.state).toBe(PodSandboxState.SANDBOX_READY);
  });

  test("a host-network pod gets the node's network namespace and no hostname", async () => {
    const pod = uniquePod({ hostNetwork: true, containers: [c("a")] });
    await h.sync(pod);
    const cfg = h.fake.state.sandboxes[0].config;
    expect(cfg.hostname).toBe("");
    expect(cfg.linux?.securityContext?.namespaceOptions?.network).toBe(NamespaceMode.NODE);
    // No IP is needed: the next sync keeps the sandbox.
    expect((await h.sync(pod)).error).toBeUndefined();
    expect(h.calls()).toEqual([]);
  });

  test("the container config has expanded command and env, log path, resources, labels and annotations", async () => {
    const container = c("app", {
      command: ["/bin/sh", "-c", "echo $(GREETING) $$(HOME) $(MISSING)"],
      args: ["$(POD_NAME)"],
      workingDir: "/tmp",
      env: [
        { name: "GREETING", value: "hello" },
        { name: "COMBINED", value: "$(GREETING)-world" },
        { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
        { name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
        { name: "MEM", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } },
      ],
      resources: { requests: { cpu: "250m", memory: "64Mi" }, limits: { cpu: "500m", memory: "128Mi" } },
      ports: [{ containerPort: 8080 }],
      tty: true,
      lifecycle: { preStop: { exec: { command: ["sleep", "1"] } } },
    });
    const pod = uniquePod({ containers: [container] });
    await h.sync(pod);
    const sandboxIp = h.fake.state.sandboxes[0].ip;
    const cfg = h.fake.state.containers[0].config;
    expect(cfg.metadata).toMatchObject({ name: "app", attempt: 0 });
    expect(cfg.command).toEqual(["/bin/sh", "-c", "echo hello $(HOME) $(MISSING)"]);
    expect(cfg.args).toEqual([pod.metadata.name!]);
    expect(cfg.workingDir).toBe("/tmp");
    const env = Object.fromEntries(cfg.envs.map((e) => [e.key, new TextDecoder().decode(e.value)]));
    expect(env).toEqual({ GREETING: "hello", COMBINED: "hello-world", POD_NAME: pod.metadata.name!, POD_IP: sandboxIp, NODE: "node1", MEM: "128" });
    expect(cfg.logPath).toBe(join("app", "0.log"));
    expect(cfg.tty).toBe(true);
    expect(cfg.image?.userSpecifiedImage).toBe(BUSYBOX);
    expect(cfg.linux?.resources).toMatchObject({ cpuShares: 256n, cpuQuota: 50000n, cpuPeriod: 100000n, memoryLimitInBytes: 134217728n });
    expect(cfg.linux?.securityContext?.seccomp?.profileType).toBe(SecurityProfile_ProfileType.Unconfined);
    expect(cfg.labels).toEqual({
      "io.kubernetes.pod.name": pod.metadata.name!,
      "io.kubernetes.pod.namespace": "ns",
      "io.kubernetes.pod.uid": pod.metadata.uid!,
      "io.kubernetes.container.name": "app",
      "io.kubernetes.container.type": "container",
    });
    expect(cfg.annotations).toEqual({
      "io.kubernetes.container.hash": hashContainer(container),
      "io.kubernetes.container.restartCount": "0",
      "io.kubernetes.container.terminationMessagePath": "/dev/termination-log",
      "io.kubernetes.container.terminationMessagePolicy": "File",
      "io.kubernetes.pod.terminationGracePeriod": "30",
      "io.kubernetes.container.preStopHandler": JSON.stringify({ exec: { command: ["sleep", "1"] } }),
      "io.kubernetes.container.ports": JSON.stringify([{ containerPort: 8080 }]),
    });
    const termination = cfg.mounts.find((m) => m.containerPath === "/dev/termination-log")!;
    expect(dirname(termination.hostPath)).toBe(join(h.dirs.podsDir, pod.metadata.uid!, "containers", "app"));
    expect(statSync(termination.hostPath).mode & 0o777).toBe(0o666);
  });

  test("a ConfigMap reference fails the container with CreateContainerConfigError and no CreateContainer", async () => {
    const pod = uniquePod({ containers: [c("a", { env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "cm", key: "k" } } }] })] });
    const result = await h.sync(pod);
    expect(h.calls()).not.toContain("CreateContainer");
    expect(result.steps.find((s) => s.target === "a")?.error?.reason).toBe("CreateContainerConfigError");
    expect(h.rm.getContainerWaitingReason(pod.metadata.uid!, "a")?.reason).toBe("CreateContainerConfigError");
  });

  test("the legacy log symlink points at the container's log file", async () => {
    // containerd's shim creates the log file (the absolute path in the container's status).
    h.fake.onCreate((ctr) => {
      mkdirSync(dirname(ctr.logPath), { recursive: true });
      writeFileSync(ctr.logPath, "");
    });
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    const ctr = h.fake.state.containers[0];
    const link = join(h.dirs.containerLogsDir, `${pod.metadata.name}_ns_a-${ctr.id}.log`);
    expect(readlinkSync(link)).toBe(join(h.fake.state.sandboxes[0].logDirectory, "a", "0.log"));
    expect(existsSync(link)).toBe(true);
  });

  test("a successful start is explained by a startup timeline in the log and the metric", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    const line = h.log.lines.find((l) => l.msg === "pod started")!;
    expect(line).toMatchObject({ pod: { name: pod.metadata.name, namespace: "ns" }, sandbox: "0ms", pull: "0ms", "a.create": "0ms", "a.start": "0ms", total: "0ms" });
    expect(h.rm.lastStartTimeline(pod.metadata.uid!)).toEqual({ sandbox: 0, pull: 0, "a.create": 0, "a.start": 0 });
    const metric = await h.metrics.registry.getSingleMetricAsString("bunlet_pod_start_step_duration_seconds");
    expect(metric).toContain('step="sandbox"');
    expect(metric).toContain('step="create"');
  });

  const podStartedLines = () => h.log.lines.filter((l) => l.msg === "pod started");

  test("restarting a container of a running pod is not a pod start", async () => {
    const pod = uniquePod({ containers: [c("a")] });
    await h.sync(pod);
    h.fake.exitContainer(h.fake.state.containers[0].id, 1);
    await h.sync(pod);
    expect(h.fake.state.containers.length).toBe(2);
    expect(podStartedLines().length).toBe(1);
  });

  test("a start whose pull failed is logged once, by the sync that starts the container, with the wait in its total", async () => {
    const image = "registry.example/team/late:1.0";
    const pod = uniquePod({ containers: [c("a", { image, imagePullPolicy: "IfNotPresent" })] });
    const failed = await h.sync(pod);
    expect(failed.error).toBeDefined();
    expect(podStartedLines()).toEqual([]);
    await h.clock.advance(10_000);
    h.fake.setPullable(image, true);
    const ok = await h.sync(pod);
    expect(ok.error).toBeUndefined();
    expect(podStartedLines()).toEqual([expect.objectContaining({ pod: { name: pod.metadata.name, namespace: "ns" }, total: "10000ms" })]);
    await h.sync(pod);
    expect(podStartedLines().length).toBe(1);
  });
});
