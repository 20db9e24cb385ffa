import { describe, expect, test } from "bun:test";
import type { Node } from "kubernetes-types/core/v1";
import { chooseHostIP, chooseNodeIPs, defaultRouteInterface } from "../../../src/node/addresses.ts";
import { parseMemTotal, parseOsImage, type MachineInfo } from "../../../src/node/machine.ts";
import { binarySI } from "../../../src/node/quantity.ts";
import { metaTime, nodeStatusHasChanged, setNodeStatus, type NodeStatusInputs } from "../../../src/node/setters.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const GiB = 1024 ** 3;

const machine: MachineInfo = {
  machineID: "m-1",
  systemUUID: "u-1",
  bootID: "b-1",
  kernelVersion: "6.1.0-18-amd64",
  osImage: "Debian GNU/Linux 12 (bookworm)",
  operatingSystem: "linux",
  architecture: "amd64",
  numCores: 4,
  memoryCapacityBytes: 16 * GiB,
  hugePages: [{ pageSizeBytes: 2 * 1024 * 1024, pages: 0 }],
  rootfsCapacityBytes: 100 * GiB,
};

function inputs(over: Partial<NodeStatusInputs> = {}): NodeStatusInputs {
  return {
    now: T0,
    hostname: "edge-1",
    nodeIPs: ["192.0.2.10"],
    machine,
    maxPods: 110,
    kubeletPort: 10250,
    kubeletVersion: "v1.37.2",
    runtime: { name: "containerd", version: "1.7.24" },
    images: [],
    notReadyReasons: [],
    pressure: { memory: false, disk: false, pid: false },
    ...over,
  };
}

const status = (node: Node) => node.status!;
const condition = (node: Node, type: string) => status(node).conditions!.find((c) => c.type === type)!;

describe("node status setters (nodestatus/setters.go)", () => {
  test("a new node: addresses, capacity, allocatable less the hard eviction thresholds, nodeInfo, daemon endpoints", () => {
    const n = setNodeStatus({ metadata: { name: "edge-1" } }, inputs());
    expect(status(n).addresses).toEqual([
      { type: "InternalIP", address: "192.0.2.10" },
      { type: "Hostname", address: "edge-1" },
    ]);
    expect(status(n).capacity).toEqual({ cpu: "4", memory: "16Gi", pods: "110", "ephemeral-storage": "100Gi", "hugepages-2Mi": "0" });
    // memory.available<100Mi, nodefs.available<10%
    expect(status(n).allocatable).toEqual({ cpu: "4", memory: "16284Mi", pods: "110", "ephemeral-storage": "90Gi", "hugepages-2Mi": "0" });
    expect(status(n).nodeInfo).toEqual({
      machineID: "m-1",
      systemUUID: "u-1",
      bootID: "b-1",
      kernelVersion: "6.1.0-18-amd64",
      osImage: "Debian GNU/Linux 12 (bookworm)",
      operatingSystem: "linux",
      architecture: "amd64",
      kubeletVersion: "v1.37.2",
      containerRuntimeVersion: "containerd://1.7.24",
      kubeProxyVersion: "",
    });
    expect(status(n).daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 10250 } });
  });

  test("declaredFeatures: the list when there is one, no field when none (the kubelet's nil list)", () => {
    expect("declaredFeatures" in status(setNodeStatus({}, inputs()))).toBe(false);
    expect("declaredFeatures" in status(setNodeStatus({}, inputs({ declaredFeatures: [] })))).toBe(false);
    expect((status(setNodeStatus({}, inputs({ declaredFeatures: ["A", "B"] }))) as { declaredFeatures?: string[] }).declaredFeatures).toEqual(["A", "B"]);
  });

  test("huge pages reserved come out of allocatable memory", () => {
    const n = setNodeStatus({}, inputs({ machine: { ...machine, hugePages: [{ pageSizeBytes: 2 * 1024 * 1024, pages: 512 }] } }));
    expect(status(n).capacity!["hugepages-2Mi"]).toBe("1Gi");
    expect(status(n).allocatable!.memory).toBe("15260Mi");
  });

  test("allocatable leaves out the container manager's reservation (kubeReserved, systemReserved, hard eviction), never below 0", () => {
    const reservation = new Map([
      ["cpu", 350n],
      ["memory", 2n * BigInt(GiB) + 100n * 1024n * 1024n],
      ["ephemeral-storage", 10n * BigInt(GiB)],
      ["pods", 500n],
    ]);
    const n = setNodeStatus({}, inputs({ allocatableReservation: reservation }));
    expect(status(n).capacity).toMatchObject({ cpu: "4", memory: "16Gi" });
    expect(status(n).allocatable).toMatchObject({ cpu: "3650m", memory: "14236Mi", "ephemeral-storage": "90Gi", pods: "0" });
  });

  test("conditions come in the kubelet's order with its reasons and messages", () => {
    const n = setNodeStatus({}, inputs());
    expect(status(n).conditions).toEqual([
      { type: "MemoryPressure", status: "False", reason: "KubeletHasSufficientMemory", message: "kubelet has sufficient memory available", lastHeartbeatTime: metaTime(T0), lastTransitionTime: metaTime(T0) },
      { type: "DiskPressure", status: "False", reason: "KubeletHasNoDiskPressure", message: "kubelet has no disk pressure", lastHeartbeatTime: metaTime(T0), lastTransitionTime: metaTime(T0) },
      { type: "PIDPressure", status: "False", reason: "KubeletHasSufficientPID", message: "kubelet has sufficient PID available", lastHeartbeatTime: metaTime(T0), lastTransitionTime: metaTime(T0) },
      { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status", lastHeartbeatTime: metaTime(T0), lastTransitionTime: metaTime(T0) },
    ]);
  });

  const notReady: [string, string[], string][] = [
    ["runtime down", ["container runtime is down"], "container runtime is down"],
    ["PLEG unhealthy", ["PLEG is not healthy: pleg was last seen active 3m10s ago; threshold is 3m0s"], "PLEG is not healthy: pleg was last seen active 3m10s ago; threshold is 3m0s"],
    [
      "network not ready",
      ["container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:cni plugin not initialized"],
      "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:cni plugin not initialized",
    ],
    ["several reasons, aggregated as utilerrors does", ["container runtime is down", "PLEG is not healthy: x"], "[container runtime is down, PLEG is not healthy: x]"],
  ];
  for (const [name, reasons, message] of notReady) {
    test(`Ready=False KubeletNotReady says why: ${name}`, () => {
      const c = condition(setNodeStatus({}, inputs({ notReadyReasons: reasons })), "Ready");
      expect(c).toMatchObject({ status: "False", reason: "KubeletNotReady", message });
    });
  }

  test("heartbeat times move every run; transition times only when the status flips", () => {
    const n = setNodeStatus({}, inputs());
    const t1 = T0 + 10_000;
    setNodeStatus(n, inputs({ now: t1 }));
    expect(condition(n, "Ready")).toMatchObject({ lastHeartbeatTime: metaTime(t1), lastTransitionTime: metaTime(T0) });
    const t2 = T0 + 20_000;
    setNodeStatus(n, inputs({ now: t2, notReadyReasons: ["container runtime is down"], pressure: { memory: true, disk: false, pid: false } }));
    expect(condition(n, "Ready")).toMatchObject({ status: "False", lastTransitionTime: metaTime(t2) });
    expect(condition(n, "MemoryPressure")).toMatchObject({ status: "True", reason: "KubeletHasInsufficientMemory", message: "kubelet has insufficient memory available", lastTransitionTime: metaTime(t2) });
    expect(condition(n, "DiskPressure")).toMatchObject({ lastTransitionTime: metaTime(T0) });
  });

  test("a condition someone else set (Unknown from the node lifecycle controller) is taken over; other conditions stay", () => {
    const n: Node = {
      status: {
        conditions: [
          { type: "Ready", status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastTransitionTime: "2025-01-01T00:00:00Z" },
          { type: "NetworkUnavailable", status: "False", reason: "RouteCreated" },
        ],
      },
    };
    setNodeStatus(n, inputs());
    expect(condition(n, "Ready")).toMatchObject({ status: "True", reason: "KubeletReady", lastTransitionTime: metaTime(T0) });
    expect(condition(n, "NetworkUnavailable")).toEqual({ type: "NetworkUnavailable", status: "False", reason: "RouteCreated" });
  });

  test("images: largest first, at most 50, digests before tags, at most 5 names each", () => {
    const images = Array.from({ length: 60 }, (_, i) => ({ repoTags: [`img${i}:1`], repoDigests: [`img${i}@sha256:${i}`], sizeBytes: i * 1000 }));
    images.push({ repoTags: ["a:1", "a:2", "a:3", "a:4"], repoDigests: ["a@sha256:1", "a@sha256:2"], sizeBytes: 1e9 });
    const n = setNodeStatus({}, inputs({ images }));
    expect(status(n).images).toHaveLength(50);
    expect(status(n).images![0]).toEqual({ names: ["a@sha256:1", "a@sha256:2", "a:1", "a:2", "a:3"], sizeBytes: 1e9 });
    expect(status(n).images![1]).toEqual({ names: ["img59@sha256:59", "img59:1"], sizeBytes: 59000 });
  });

  test("a runtime that does not answer keeps the runtime version and images last reported", () => {
    const n = setNodeStatus({}, inputs({ images: [{ repoTags: ["x:1"], repoDigests: [], sizeBytes: 5 }] }));
    setNodeStatus(n, inputs({ runtime: undefined, images: undefined }));
    expect(status(n).nodeInfo!.containerRuntimeVersion).toBe("containerd://1.7.24");
    expect(status(n).images).toEqual([{ names: ["x:1"], sizeBytes: 5 }]);
  });

  test("nodeStatusHasChanged ignores heartbeat times only", () => {
    const a = setNodeStatus({}, inputs());
    const b = setNodeStatus(structuredClone(a), inputs({ now: T0 + 10_000 }));
    expect(nodeStatusHasChanged(a.status, b.status)).toBe(false);
    const c = setNodeStatus(structuredClone(a), inputs({ now: T0 + 10_000, notReadyReasons: ["container runtime is down"] }));
    expect(nodeStatusHasChanged(a.status, c.status)).toBe(true);
    const d = setNodeStatus(structuredClone(a), inputs({ now: T0 + 10_000, maxPods: 30 }));
    expect(nodeStatusHasChanged(a.status, d.status)).toBe(true);
  });
});

describe("machine facts and quantities", () => {
  test("BinarySI quantities are canonical as the apiserver writes them", () => {
    expect([0, 512, 1024, 1536, 16 * GiB, 16 * GiB - 100 * 1024 * 1024, 1024 ** 4, 12345].map(binarySI)).toEqual(["0", "512", "1Ki", "1536", "16Gi", "16284Mi", "1Ti", "12345"]);
  });

  test("/proc/meminfo MemTotal and os-release PRETTY_NAME", () => {
    expect(parseMemTotal("MemTotal:       24683620 kB\nMemFree:  1 kB\n")).toBe(24683620 * 1024);
    expect(parseOsImage('NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n')).toBe("Debian GNU/Linux 12 (bookworm)");
    expect(parseOsImage("ID=alpine\n")).toBe("Linux");
  });

  test("the default route's interface and address (InternalIP without --node-ip)", () => {
    const route = [
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT",
      "eth1\t00000000\t010200C0\t0003\t0\t0\t200\t00000000\t0\t0\t0",
      "eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0",
      "bunlet0\t0000580A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0",
    ].join("\n");
    expect(defaultRouteInterface(route)).toBe("eth0");
    const ifaces = {
      lo: [{ address: "127.0.0.1", family: "IPv4", internal: true }],
      bunlet0: [{ address: "10.88.0.1", family: "IPv4", internal: false }],
      eth0: [{ address: "fe80::1", family: "IPv6", internal: false }, { address: "192.0.2.2", family: "IPv4", internal: false }],
    } as never;
    expect(chooseHostIP(route, ifaces)).toBe("192.0.2.2");
    expect(chooseHostIP("Iface\tDestination\n", ifaces)).toBe("10.88.0.1");
  });
});

describe("chooseNodeIPs: one choice for the Node's InternalIP and the pods' hostIPs", () => {
  const addr = (address: string, family: "IPv4" | "IPv6", internal = false) => ({ address, family, internal, netmask: "", mac: "", cidr: null });
  const route = (iface: string) =>
    ["Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT", `${iface}\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0`].join("\n");
  test.each([
    ["--node-ip wins over every interface", ["10.9.9.9"], route("eth1"), { eth1: [addr("192.0.2.2", "IPv4")] }, ["10.9.9.9"]],
    // The multi-NIC host: the OS lists eth0 first, but the default route leaves through eth1. The
    // pods' hostIP used to be eth0's address while the Node's InternalIP was eth1's.
    ["the default route's interface, not the first listed", [], route("eth1"), { lo: [addr("127.0.0.1", "IPv4", true)], eth0: [addr("10.0.0.5", "IPv4")], eth1: [addr("192.0.2.2", "IPv4")] }, ["192.0.2.2"]],
    ["no default route: the first external IPv4", [], "", { lo: [addr("127.0.0.1", "IPv4", true)], eth0: [addr("10.0.0.5", "IPv4")] }, ["10.0.0.5"]],
    ["an IPv6-only host: a global IPv6, never link-local", [], "", { eth0: [addr("fe80::1", "IPv6"), addr("2001:db8::7", "IPv6")] }, ["2001:db8::7"]],
    ["loopback only: nothing (the wiring falls back to 127.0.0.1 for pods)", [], "", { lo: [addr("127.0.0.1", "IPv4", true), addr("::1", "IPv6", true)] }, []],
  ])("%s", (_name, configured, procNetRoute, interfaces, expected) => {
    expect(chooseNodeIPs(configured, procNetRoute, interfaces as never)).toEqual(expected);
  });
});
