import { describe, expect, test } from "bun:test";
import type { Node } from "kubernetes-types/core/v1";
import { ApiError, type ApiClient, type WatchEvent } from "../../../src/apiclient/index.ts";
import { Channel, silentLogger } from "../../../src/lib/index.ts";
import { createMemoryLogger, FakeClock, flushMicrotasks } from "../../../src/lib/testing.ts";
import { createPodNetwork } from "../../../src/network/controller.ts";
import type { HostNetwork } from "../../../src/network/host.ts";
import type { PodRoute } from "../../../src/network/routes.ts";
import type { VxlanPeer } from "../../../src/network/vxlan.ts";

function node(name: string, podCIDR: string | undefined, ip: string): Node {
  return { metadata: { name, resourceVersion: "1" }, spec: podCIDR ? { podCIDR, podCIDRs: [podCIDR] } : {}, status: { addresses: [{ type: "InternalIP", address: ip }] } };
}

/** A Nodes collection: one list, then the events the test sends, to every watch whose field selector they match. */
function fakeNodes(initial: Node[]) {
  const watches: { channel: Channel<WatchEvent<Node>>; name?: string }[] = [];
  const selectors: (string | undefined)[] = [];
  const nameOf = (fieldSelector?: string) => fieldSelector?.replace("metadata.name=", "");
  const matches = (n: Node, name?: string) => name === undefined || n.metadata?.name === name;
  const client: Pick<ApiClient, "list" | "watch"> = {
    list: async <T,>(_path: string, opts?: { fieldSelector?: string }) => {
      selectors.push(opts?.fieldSelector);
      return { items: initial.filter((n) => matches(n, nameOf(opts?.fieldSelector))) as T[], metadata: { resourceVersion: "1" } };
    },
    watch: <T,>(_path: string, opts?: { fieldSelector?: string; signal?: AbortSignal }) => {
      const channel = new Channel<WatchEvent<Node>>(16);
      watches.push({ channel, name: nameOf(opts?.fieldSelector) });
      // The apiserver ends a watch when the client goes away.
      opts?.signal?.addEventListener("abort", () => channel.close(), { once: true });
      return channel as unknown as AsyncIterable<WatchEvent<T>>;
    },
  };
  const send = async (type: WatchEvent<Node>["type"], object: Node) => {
    for (const w of watches) if (matches(object, w.name)) await w.channel.send({ type, object } as WatchEvent<Node>);
  };
  return { client, selectors, send };
}

function fakeHost(routes: PodRoute[] = [], behindRouter: string[] = []) {
  const rules: string[][] = [];
  const peers: VxlanPeer[] = [];
  const devices: string[] = [];
  const host: HostNetwork = {
    isDirect: async (ip) => !behindRouter.includes(ip),
    ensureVxlan: async (local, mac, address) => void devices.splice(0, devices.length, `${local} ${mac} ${address}`),
    listPeers: async () => [...peers],
    setPeer: async (p) => void peers.push(p),
    removePeer: async (p) => void peers.splice(peers.findIndex((x) => x.mac === p.mac), 1),
    listRoutes: async () => [...routes],
    replaceRoute: async (r) => void routes.splice(0, routes.length, ...routes.filter((x) => x.dst !== r.dst), { dst: r.dst, via: r.via, ...(r.dev ? { dev: r.dev } : {}) }),
    deleteRoute: async (r) => void routes.splice(0, routes.length, ...routes.filter((x) => x.dst !== r.dst)),
    localAddresses: async () => new Set(["192.168.5.1"]),
    syncRules: async (input) => void rules.push([...input.local, "|", ...input.cluster]),
  };
  return { host, routes, rules, peers, devices };
}

/** Lets the reflector, the store's wake-up and one sync pass run (all on promises, no timers). */
async function settle() {
  for (let i = 0; i < 20; i++) await flushMicrotasks();
}

describe("the pod network of a joined node", () => {
  test("waits for the Node's range, hands it to the runtime once assigned, and then routes to the other nodes", async () => {
    const clock = new FakeClock();
    const nodes = fakeNodes([node("a", undefined, "192.168.5.1"), node("b", "10.90.1.0/24", "192.168.5.2")]);
    const { host, routes, rules } = fakeHost();
    const applied: string[] = [];
    const net = createPodNetwork(
      { client: nodes.client, apply: async (c, origin) => void applied.push(`${c} ${origin}`), host, clock, random: () => 0, log: silentLogger },
      { nodeName: "a", flagPodCIDR: "", fallbackPodCIDR: "10.88.0.0/16" },
    );
    const stop = new AbortController();
    const running = net.run(stop.signal);
    await settle();
    expect(applied).toEqual([]);
    expect(routes).toEqual([]); // no range of its own yet: no routes, no rules

    await nodes.send("MODIFIED", node("a", "10.90.0.0/24", "192.168.5.1"));
    await settle();
    expect(applied).toEqual(["10.90.0.0/24 node"]);
    expect(net.podCIDR()).toBe("10.90.0.0/24");
    expect(routes).toEqual([{ dst: "10.90.1.0/24", via: "192.168.5.2" }]);
    expect(rules.at(-1)).toEqual(["10.90.0.0/24", "|", "10.90.0.0/24", "10.90.1.0/24"]);

    await nodes.send("DELETED", node("b", "10.90.1.0/24", "192.168.5.2"));
    await settle();
    expect(routes).toEqual([]);
    stop.abort();
    await running;
  });

  test("a Node never given a range gets the fallback after the wait, and no routes", async () => {
    const clock = new FakeClock();
    const nodes = fakeNodes([node("a", undefined, "192.168.5.1"), node("b", "10.90.1.0/24", "192.168.5.2")]);
    const { host, routes } = fakeHost();
    const applied: string[] = [];
    const net = createPodNetwork(
      { client: nodes.client, apply: async (c, origin) => void applied.push(`${c} ${origin}`), host, clock, random: () => 0, log: silentLogger },
      { nodeName: "a", flagPodCIDR: "", fallbackPodCIDR: "10.88.0.0/16", waitForPodCIDRMs: 30_000 },
    );
    const ctl = new AbortController();
    const running = net.run(ctl.signal);
    await clock.whenTimer(30_000);
    clock.advance(30_000);
    await settle();
    expect(applied).toEqual(["10.88.0.0/16 fallback"]);
    expect(routes).toEqual([]);
    // Assigned later: the Node's range replaces the fallback, and routing starts.
    await nodes.send("MODIFIED", node("a", "10.90.0.0/24", "192.168.5.1"));
    await settle();
    expect(applied).toEqual(["10.88.0.0/16 fallback", "10.90.0.0/24 node"]);
    expect(routes).toEqual([{ dst: "10.90.1.0/24", via: "192.168.5.2" }]);
    ctl.abort();
    await running;
  });

  test("a restart with the last run's range keeps it and the routes: nothing is re-applied or removed", async () => {
    const clock = new FakeClock();
    const nodes = fakeNodes([node("a", "10.90.0.0/24", "192.168.5.1"), node("b", "10.90.1.0/24", "192.168.5.2")]);
    const { host, routes } = fakeHost([{ dst: "10.90.1.0/24", via: "192.168.5.2" }]);
    const calls: string[] = [];
    const spy: HostNetwork = { ...host, replaceRoute: async (r) => void calls.push(`replace ${r.dst}`), deleteRoute: async (r) => void calls.push(`delete ${r.dst}`) };
    const applied: string[] = [];
    const net = createPodNetwork(
      { client: nodes.client, apply: async (c) => void applied.push(c), host: spy, clock, random: () => 0, log: silentLogger },
      { nodeName: "a", flagPodCIDR: "", appliedPodCIDR: "10.90.0.0/24" },
    );
    const ctl = new AbortController();
    const running = net.run(ctl.signal);
    await nodes.send("MODIFIED", node("b", "10.90.1.0/24", "192.168.5.2"));
    await settle();
    expect(applied).toEqual([]);
    expect(calls).toEqual([]);
    expect(routes).toEqual([{ dst: "10.90.1.0/24", via: "192.168.5.2" }]);
    ctl.abort();
    await running;
  });
});

describe("a node whose credentials may read only its own Node (the Node authorizer since 1.34)", () => {
  test("still gets its pod CIDR, and says what to grant for routes", async () => {
    const clock = new FakeClock();
    const nodes = fakeNodes([node("a", "10.90.0.0/24", "192.168.5.1"), node("b", "10.90.1.0/24", "192.168.5.2")]);
    const forbidden = new ApiError(`nodes is forbidden: User "system:node:a" cannot list resource "nodes" in API group "" at the cluster scope`, { code: 403, reason: "Forbidden" });
    const client: Pick<ApiClient, "list" | "watch"> = {
      list: async <T,>(path: string, opts?: { fieldSelector?: string }) => {
        if (!opts?.fieldSelector) throw forbidden;
        return nodes.client.list<T>(path, opts);
      },
      watch: nodes.client.watch,
    };
    const { host, routes } = fakeHost();
    const log = createMemoryLogger();
    const applied: string[] = [];
    const net = createPodNetwork({ client, apply: async (c) => void applied.push(c), host, clock, random: () => 0, log }, { nodeName: "a", flagPodCIDR: "" });
    const ctl = new AbortController();
    const running = net.run(ctl.signal);
    await settle();
    expect({ applied, routes }).toEqual({ applied: ["10.90.0.0/24"], routes: [] });
    expect(log.lines.filter((l) => l.level === "error").map((l) => l.msg)).toEqual([
      "Cannot list Nodes, so no routes lead to other nodes' pods: grant list and watch on nodes to the group system:nodes (see docs/network.md); retrying",
    ]);
    ctl.abort();
    await running;
  });
});

describe("a node behind a router", () => {
  test("is reached over VXLAN (the device made on first need), the others by host-gw; its peer entries go with it", async () => {
    const clock = new FakeClock();
    const nodes = fakeNodes([node("a", "10.90.0.0/24", "192.168.5.1"), node("b", "10.90.1.0/24", "192.168.5.2"), node("d", "10.90.3.0/24", "172.16.9.4")]);
    const { host, routes, peers, devices } = fakeHost([], ["172.16.9.4"]);
    const net = createPodNetwork({ client: nodes.client, apply: async () => {}, host, clock, random: () => 0, log: silentLogger }, { nodeName: "a", flagPodCIDR: "" });
    const ctl = new AbortController();
    const running = net.run(ctl.signal);
    await settle();
    expect(routes).toEqual([
      { dst: "10.90.1.0/24", via: "192.168.5.2" },
      { dst: "10.90.3.0/24", via: "10.90.3.0", dev: "bunlet.vxlan" },
    ]);
    expect(devices).toEqual(["192.168.5.1 0e:ba:c0:a8:05:01 10.90.0.0"]);
    expect(peers).toEqual([{ mac: "0e:ba:ac:10:09:04", gateway: "10.90.3.0", underlay: "172.16.9.4" }]);
    await nodes.send("DELETED", node("d", "10.90.3.0/24", "172.16.9.4"));
    await settle();
    expect({ routes, peers }).toEqual({ routes: [{ dst: "10.90.1.0/24", via: "192.168.5.2" }], peers: [] });
    ctl.abort();
    await running;
  });
});

describe("while the apiserver is away", () => {
  test("a restarted node keeps its routes: none is removed before the Nodes were listed", async () => {
    const clock = new FakeClock();
    const client: Pick<ApiClient, "list" | "watch"> = {
      list: async () => {
        throw new Error("dial tcp 10.89.0.1:6443: connect: connection refused");
      },
      watch: () => {
        throw new Error("not reached");
      },
    };
    const { host, routes } = fakeHost([{ dst: "10.90.1.0/24", via: "192.168.5.2" }]);
    const net = createPodNetwork({ client, apply: async () => {}, host, clock, random: () => 0, log: silentLogger }, { nodeName: "a", flagPodCIDR: "", appliedPodCIDR: "10.90.0.0/24", resyncMs: 30_000 });
    const ctl = new AbortController();
    const running = net.run(ctl.signal);
    for (let i = 0; i < 3; i++) {
      await clock.whenTimer(30_000);
      clock.advance(30_000);
      await settle();
    }
    expect(routes).toEqual([{ dst: "10.90.1.0/24", via: "192.168.5.2" }]);
    ctl.abort();
    await running;
  });
});

describe("with an external runtime", () => {
  test("only this Node is watched, and its pod CIDR goes to the runtime once", async () => {
    const clock = new FakeClock();
    const nodes = fakeNodes([node("a", "10.90.0.0/24", "192.168.5.1")]);
    const applied: string[] = [];
    const net = createPodNetwork(
      { client: nodes.client, apply: async (c, origin) => void applied.push(`${c} ${origin}`), clock, random: () => 0, log: silentLogger },
      { nodeName: "a", flagPodCIDR: "" },
    );
    const ctl = new AbortController();
    const running = net.run(ctl.signal);
    await settle();
    await nodes.send("MODIFIED", node("a", "10.90.0.0/24", "192.168.5.1"));
    await settle();
    expect(nodes.selectors).toEqual(["metadata.name=a"]);
    expect(applied).toEqual(["10.90.0.0/24 node"]);
    ctl.abort();
    await running;
  });

  test("a runtime that refuses the pod CIDR is asked again at the next Node change", async () => {
    const clock = new FakeClock();
    const nodes = fakeNodes([node("a", "10.90.0.0/24", "192.168.5.1")]);
    let calls = 0;
    const net = createPodNetwork(
      {
        client: nodes.client,
        apply: async () => {
          if (++calls === 1) throw new Error("rpc error: code = Unavailable");
        },
        clock,
        random: () => 0,
        log: silentLogger,
      },
      { nodeName: "a", flagPodCIDR: "" },
    );
    const ctl = new AbortController();
    const running = net.run(ctl.signal);
    await settle();
    expect(net.podCIDR()).toBe("");
    await nodes.send("MODIFIED", node("a", "10.90.0.0/24", "192.168.5.1"));
    await settle();
    expect({ calls, podCIDR: net.podCIDR() }).toEqual({ calls: 2, podCIDR: "10.90.0.0/24" });
    ctl.abort();
    await running;
  });
});
