import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/apiclient/index.ts";
import type { Pod } from "../../../src/api/index.ts";
import { FakeClock, createMemoryLogger } from "../../../src/lib/testing.ts";
import { createMirrorPods, isMirrorPodOf, mirrorPodFor } from "../../../src/mirrorpods/mirror.ts";
import { makePod } from "../../fixtures/pods.ts";

const staticPod = (hash = "h1"): Pod =>
  makePod({
    name: "etcd-node-1",
    namespace: "kube-system",
    metadata: { uid: hash, annotations: { "kubernetes.io/config.source": "file", "kubernetes.io/config.hash": hash } },
    spec: { nodeName: "node-1", containers: [{ name: "etcd", image: "etcd" }] },
    status: { phase: "Running" },
  });
const mirrorOf = (pod: Pod, extra: Partial<Pod["metadata"]> = {}): Pod => ({
  ...mirrorPodFor(pod, { name: "node-1", uid: "node-uid" }),
  metadata: { ...mirrorPodFor(pod, { name: "node-1", uid: "node-uid" }).metadata, uid: "mirror-uid", ...extra },
});

describe("mirror pod objects", () => {
  test("a mirror pod is the static pod with the mirror annotation (its hash) and the Node as controller, without status", () => {
    const m = mirrorPodFor(staticPod(), { name: "node-1", uid: "node-uid" });
    expect(m.metadata.annotations?.["kubernetes.io/config.mirror"]).toBe("h1");
    expect(m.metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: "node-1", uid: "node-uid", controller: true }]);
    expect(m.status).toBeUndefined();
    expect(m.spec).toEqual(staticPod().spec);
  });

  test.each([
    ["same name and hash", mirrorOf(staticPod("h1")), staticPod("h1"), true],
    ["another hash (the manifest changed)", mirrorOf(staticPod("h0")), staticPod("h1"), false],
    ["another name", { ...mirrorOf(staticPod()), metadata: { ...mirrorOf(staticPod()).metadata, name: "other" } }, staticPod(), false],
  ] as const)("IsMirrorPodOf: %s", (_name, mirror, pod, want) => {
    expect(isMirrorPodOf(mirror as Pod, pod as Pod)).toBe(want);
  });
});

class FakeApi {
  calls: string[] = [];
  nodeExists = true;
  pods: Pod[] = [];
  createError?: ApiError;
  /** An apiserver stopped with SIGSTOP: every request waits until the caller gives up. */
  frozen = false;
  #hang(opts: any): Promise<never> {
    return new Promise((_r, reject) => opts?.signal?.addEventListener("abort", () => reject(opts.signal.reason)));
  }
  async get<T>(path: string, opts?: any): Promise<T> {
    if (this.frozen) return this.#hang(opts);
    this.calls.push(`GET ${path}`);
    if (!this.nodeExists) throw new ApiError("not found", { code: 404, reason: "NotFound" });
    return { metadata: { name: "node-1", uid: "node-uid" } } as T;
  }
  async create<T>(path: string, body: T): Promise<T> {
    this.calls.push(`POST ${path}`);
    if (this.createError) throw this.createError;
    return { ...(body as object), metadata: { ...(body as any).metadata, uid: "mirror-uid" } } as T;
  }
  async delete(path: string, opts: any) {
    this.calls.push(`DELETE ${path} grace=${opts.gracePeriodSeconds} uid=${opts.preconditions?.uid ?? ""}`);
    return {};
  }
  async list<T>(_path?: string, opts?: any) {
    if (this.frozen) return this.#hang(opts);
    return { metadata: { resourceVersion: "1" }, items: this.pods as T[] };
  }
  async *watch<T>(_path: string, opts: any): AsyncIterable<{ type: "ADDED"; object: T }> {
    await new Promise((_r, reject) => opts.signal?.addEventListener("abort", () => reject(opts.signal.reason)));
  }
}

function setup() {
  const api = new FakeApi();
  const clock = new FakeClock();
  const resynced: string[] = [];
  const m = createMirrorPods({ client: api as never, nodeName: "node-1", clock, random: () => 0, log: createMemoryLogger(), resync: (n) => resynced.push(n) });
  const stop = new AbortController();
  return { api, clock, m, resynced, signal: stop.signal, start: () => m.run(stop.signal), stop: () => stop.abort() };
}

describe("mirror pod sync", () => {
  test("a static pod without a mirror pod gets one, made once", async () => {
    const t = setup();
    const running = t.start();
    await t.clock.settle();
    await t.m.sync(staticPod(), t.signal);
    await t.m.sync(staticPod(), t.signal);
    expect(t.api.calls).toEqual(["GET /api/v1/nodes/node-1", "POST /api/v1/namespaces/kube-system/pods"]);
    t.stop();
    await running;
  });

  test("a mirror pod with another hash is deleted (grace 0, its UID) and made again", async () => {
    const t = setup();
    t.api.pods = [mirrorOf(staticPod("h0"))];
    const running = t.start();
    await t.clock.settle();
    expect(t.resynced).toEqual(["etcd-node-1_kube-system"]);
    await t.m.sync(staticPod("h1"), t.signal);
    expect(t.api.calls).toEqual([
      "DELETE /api/v1/namespaces/kube-system/pods/etcd-node-1 grace=0 uid=mirror-uid",
      "GET /api/v1/nodes/node-1",
      "POST /api/v1/namespaces/kube-system/pods",
    ]);
    t.stop();
    await running;
  });

  test("a mirror pod being deleted is deleted and made again", async () => {
    const t = setup();
    t.api.pods = [mirrorOf(staticPod(), { deletionTimestamp: "2026-01-01T00:00:00Z" })];
    const running = t.start();
    await t.clock.settle();
    await t.m.sync(staticPod(), t.signal);
    expect(t.api.calls.map((c) => c.split(" ")[0])).toEqual(["DELETE", "GET", "POST"]);
    t.stop();
    await running;
  });

  test("without the Node no mirror pod is made, and the static pod is synced again shortly", async () => {
    const t = setup();
    const running = t.start();
    await t.clock.settle();
    t.api.nodeExists = false;
    await t.m.sync(staticPod(), t.signal);
    expect(t.api.calls).toEqual(["GET /api/v1/nodes/node-1"]);
    await t.clock.advance(2000);
    expect(t.resynced).toEqual(["etcd-node-1_kube-system"]);
    t.stop();
    await running;
  });

  test("before the mirror pods are listed (an apiserver that does not answer) no call is made, so the static pod starts at once, and it is synced again shortly", async () => {
    const t = setup();
    t.api.frozen = true;
    const running = t.start();
    await t.clock.settle();
    let done = false;
    void t.m.sync(staticPod(), t.signal).then(() => (done = true));
    await t.clock.settle();
    expect(done).toBe(true);
    expect(t.api.calls).toEqual([]);
    await t.clock.advance(2000);
    expect(t.resynced).toEqual(["etcd-node-1_kube-system"]);
    t.stop();
    await running.catch(() => {});
  });

  test("an AlreadyExists answer is not an error", async () => {
    const t = setup();
    const running = t.start();
    await t.clock.settle();
    t.api.createError = new ApiError("exists", { code: 409, reason: "AlreadyExists" });
    await t.m.sync(staticPod(), t.signal);
    expect(t.api.calls.at(-1)).toBe("POST /api/v1/namespaces/kube-system/pods");
    t.stop();
    await running;
  });

  test("housekeeping deletes the mirror pods whose static pod is gone, and only those", async () => {
    const t = setup();
    const other = { ...staticPod(), metadata: { ...staticPod().metadata, name: "gone" } };
    t.api.pods = [mirrorOf(staticPod()), mirrorOf(other as Pod)];
    const running = t.start();
    await t.clock.settle();
    await t.m.deleteOrphaned((name) => name === "etcd-node-1_kube-system", t.signal);
    expect(t.api.calls).toEqual(["DELETE /api/v1/namespaces/kube-system/pods/gone grace=0 uid="]);
    t.stop();
    await running;
  });
});
