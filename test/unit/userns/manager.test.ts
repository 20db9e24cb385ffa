// The user namespace manager (TestGetOrCreateUserNamespaceMappings, TestCleanupOrphanedPodUsernsAllocations,
// the kubelet's HandlerSupportsUserNamespaces) over a temp pods directory.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../../../src/api/index.ts";
import { silentLogger } from "../../../src/lib/index.ts";
import { startUserNamespaceManager } from "../../../src/userns/index.ts";
import type { KubeletMappingsDeps } from "../../../src/userns/kubelet-mappings.ts";
import { handlerSupportsUserNamespaces, UserNamespaceError, type RuntimeHandlerInfo } from "../../../src/userns/manager.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const noKubeletUser: KubeletMappingsDeps = { userExists: () => false, findGetsubids: () => undefined, run: async () => "" };
const capable: RuntimeHandlerInfo[] = [{ name: "", userNamespaces: true }, { name: "runc", userNamespaces: true }, { name: "kata", userNamespaces: false }];

async function setup(handlers: RuntimeHandlerInfo[] = capable, podsDir = mkdtempSync(join(tmpdir(), "userns-"))) {
  if (!dirs.includes(podsDir)) dirs.push(podsDir);
  const podDir = (uid: string) => join(podsDir, uid);
  const manager = await startUserNamespaceManager({
    idsPerPod: 65536,
    maxPods: 110,
    podDir,
    listPodsFromDisk: async () => readdirSync(podsDir),
    runtimeHandlers: () => handlers,
    random: () => 0,
    log: silentLogger,
    host: noKubeletUser,
  });
  return { manager, podsDir, podDir };
}

function pod(uid: string, hostUsers?: boolean): Pod {
  return { metadata: { name: uid, namespace: "default", uid }, spec: { containers: [{ name: "c", image: "busybox" }], hostUsers } } as Pod;
}

describe("HandlerSupportsUserNamespaces", () => {
  const cases: { name: string; handlers: RuntimeHandlerInfo[]; handler: string; want: boolean | string }[] = [
    { name: "a runtime that lists no handlers (containerd 1.x) cannot", handlers: [], handler: "", want: false },
    { name: "the default handler with the feature", handlers: capable, handler: "", want: true },
    { name: "a RuntimeClass handler without it", handlers: capable, handler: "kata", want: false },
    { name: "a handler the runtime does not list", handlers: capable, handler: "gvisor", want: 'the handler "gvisor" is not known' },
  ];
  for (const c of cases) {
    test(c.name, () => {
      if (typeof c.want === "string") expect(() => handlerSupportsUserNamespaces(c.handlers, c.handler)).toThrow(c.want);
      else expect(handlerSupportsUserNamespaces(c.handlers, c.handler)).toBe(c.want);
    });
  }
});

describe("GetOrCreateUserNamespaceMappings", () => {
  const pods = (msg: string) => `can't set \`spec.hostUsers: false\`, ${msg}`;
  const cases: { name: string; pod: Pod; handlers?: RuntimeHandlerInfo[]; handler?: string; want: "NODE" | "POD" | string }[] = [
    { name: "hostUsers unset: the node's namespace", pod: pod("a"), want: "NODE" },
    { name: "hostUsers true: the node's namespace", pod: pod("a", true), want: "NODE" },
    { name: "hostUsers unset on a runtime without support is fine", pod: pod("a"), handlers: [], want: "NODE" },
    { name: "hostUsers false: the pod's own range", pod: pod("a", false), want: "POD" },
    { name: "hostUsers false through a capable RuntimeClass handler", pod: pod("a", false), handler: "runc", want: "POD" },
    { name: "hostUsers false on a runtime without handlers", pod: pod("a", false), handlers: [], want: pods("runtime does not support user namespaces") },
    { name: "hostUsers false through a handler without the feature", pod: pod("a", false), handler: "kata", want: pods('RuntimeClass handler "kata" does not support user namespaces') },
    {
      name: "hostUsers false through a handler the runtime does not know",
      pod: pod("a", false),
      handler: "gvisor",
      want: pods('RuntimeClass handler "gvisor" does not support user namespaces: the handler "gvisor" is not known'),
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const { manager, podDir } = await setup(c.handlers);
      const run = () => manager.getOrCreateUserNamespaceMappings(c.pod, c.handler ?? "");
      if (c.want === "NODE") expect(run()).toEqual({ mode: "NODE" });
      else if (c.want === "POD") {
        const mapping = { hostId: 65536, containerId: 0, length: 65536 };
        expect(run()).toEqual({ mode: "POD", uids: [mapping], gids: [mapping] });
        expect(JSON.parse(readFileSync(join(podDir("a"), "userns"), "utf8"))).toEqual({ uidMappings: [mapping], gidMappings: [mapping] });
      } else {
        expect(run).toThrow(UserNamespaceError);
        expect(run).toThrow(c.want);
        expect(existsSync(join(podDir("a"), "userns"))).toBe(false);
        expect(manager.allocated().size).toBe(0);
      }
    });
  }

  test("a pod keeps its range across syncs and restarts; a new pod never gets it", async () => {
    const first = await setup();
    const a1 = first.manager.getOrCreateUserNamespaceMappings(pod("a", false), "");
    expect(first.manager.getOrCreateUserNamespaceMappings(pod("a", false), "")).toEqual(a1);
    // A restart: a new manager over the same pods directory, its random scan starting at the same slot.
    const second = await setup(capable, first.podsDir);
    expect([...second.manager.allocated()]).toEqual([["a", { hostId: 65536, length: 65536 }]]);
    expect(second.manager.getOrCreateUserNamespaceMappings(pod("a", false), "")).toEqual(a1);
    const b = second.manager.getOrCreateUserNamespaceMappings(pod("b", false), "");
    expect(b).toEqual({ mode: "POD", uids: [{ hostId: 131072, containerId: 0, length: 65536 }], gids: [{ hostId: 131072, containerId: 0, length: 65536 }] });
  });

  test("a damaged userns file refuses the pod, and stops a restart naming the pod", async () => {
    const { manager, podDir, podsDir } = await setup();
    mkdirSync(podDir("bad"), { recursive: true });
    writeFileSync(join(podDir("bad"), "userns"), '{"uidMappings":[{"hostId":65536,"containerId":1,"length":65536}],"gidMappings":[{"hostId":65536,"containerId":1,"length":65536}]}');
    expect(() => manager.getOrCreateUserNamespaceMappings(pod("bad", false), "")).toThrow("user namespace: invalid user namespace configuration: UID 0 must be mapped");
    await expect(setup(capable, podsDir)).rejects.toThrow('create user namespace manager: record pod mappings for existing pod "bad": invalid user namespace configuration: UID 0 must be mapped');
  });
});

describe("release and orphan cleanup", () => {
  test("release frees the range and removes the file; the range goes to the next pod", async () => {
    const { manager, podDir } = await setup();
    manager.getOrCreateUserNamespaceMappings(pod("a", false), "");
    manager.release("a");
    expect(existsSync(join(podDir("a"), "userns"))).toBe(false);
    expect(manager.allocated().size).toBe(0);
    manager.release("a");
    const b = manager.getOrCreateUserNamespaceMappings(pod("b", false), "");
    expect(b.mode === "POD" && b.uids[0]!.hostId).toBe(65536);
  });

  const cases: { name: string; allocated: string[]; known: string[]; onDisk: string[]; kept: string[] }[] = [
    { name: "no stale pods", allocated: [], known: [], onDisk: [], kept: [] },
    { name: "a known pod keeps its range", allocated: ["a"], known: ["a"], onDisk: ["a"], kept: ["a"] },
    { name: "a pod known only to the runtime keeps it", allocated: ["a"], known: ["a"], onDisk: [], kept: ["a"] },
    { name: "an unknown pod whose directory is still on disk keeps it (its files may use the range)", allocated: ["a"], known: [], onDisk: ["a"], kept: ["a"] },
    { name: "an unknown pod whose directory is gone loses it", allocated: ["a", "b"], known: ["b"], onDisk: ["b"], kept: ["b"] },
    { name: "nothing known, nothing on disk: all freed", allocated: ["a", "b"], known: [], onDisk: [], kept: [] },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const { manager } = await setup();
      for (const uid of c.allocated) manager.getOrCreateUserNamespaceMappings(pod(uid, false), "");
      manager.cleanupOrphaned(new Set(c.known), new Set(c.onDisk));
      expect([...manager.allocated().keys()].sort()).toEqual(c.kept);
    });
  }
});
