import { describe, expect, test } from "bun:test";
import { microTime, newLease, renewalPatch } from "../../../src/node/lease.ts";
import { defaultLabelsPatch } from "../../../src/node/register.ts";
import { aggregateMessage } from "../../../src/node/setters.ts";
import { statusPatch } from "../../../src/node/status-loop.ts";

describe("node status patch (nodeutil.PatchNodeStatus)", () => {
  test("conditions merge by type, addresses are replaced whole, vanished resources are removed", () => {
    const original = {
      capacity: { cpu: "2", "hugepages-1Gi": "0" },
      allocatable: { cpu: "2", "hugepages-1Gi": "0" },
      addresses: [{ type: "InternalIP", address: "192.0.2.1" }],
    };
    const next = {
      capacity: { cpu: "2" },
      allocatable: { cpu: "2" },
      addresses: [{ type: "InternalIP", address: "192.0.2.9" }],
      conditions: [{ type: "Ready", status: "True" }],
      nodeInfo: { kubeletVersion: "v1.37.2" } as never,
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    };
    expect(statusPatch(original, next)).toEqual({
      status: {
        capacity: { cpu: "2", "hugepages-1Gi": null },
        allocatable: { cpu: "2", "hugepages-1Gi": null },
        conditions: [{ type: "Ready", status: "True" }],
        addresses: [{ $patch: "replace" }, { type: "InternalIP", address: "192.0.2.9" }],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: { kubeletVersion: "v1.37.2" },
      },
    } as never);
  });
});

describe("registration of an existing Node (updateDefaultLabels)", () => {
  const initial = { metadata: { labels: { "kubernetes.io/hostname": "n1", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", mine: "x" } } };
  test("default labels that differ are set; other labels are left alone", () => {
    const existing = { metadata: { labels: { "kubernetes.io/hostname": "old", "kubernetes.io/os": "linux", other: "y" } } };
    expect(defaultLabelsPatch(initial, existing)).toEqual({ "kubernetes.io/hostname": "n1", "kubernetes.io/arch": "amd64" });
  });
  test("nothing to do when they match", () => {
    expect(defaultLabelsPatch(initial, structuredClone(initial))).toBeUndefined();
  });
});

describe("the node lease", () => {
  const opts = { nodeName: "n1", leaseDurationSeconds: 40 };
  test("a new Lease: kube-node-lease/<node>, held by the node, 40 s, renewed now (MicroTime)", () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 1, 234);
    expect(newLease(undefined, opts, now)).toEqual({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "n1", namespace: "kube-node-lease" },
      spec: { holderIdentity: "n1", leaseDurationSeconds: 40, renewTime: "2026-01-01T00:00:01.234000Z" },
    });
    expect(microTime(now)).toBe("2026-01-01T00:00:01.234000Z");
  });
  test("a renewal keeps the stored Lease (resourceVersion) and adds the Node as owner once it exists", () => {
    const base = { metadata: { name: "n1", namespace: "kube-node-lease", resourceVersion: "7" }, spec: { holderIdentity: "n1", leaseDurationSeconds: 40 } };
    const renewed = newLease(base, opts, Date.UTC(2026, 0, 1), { metadata: { uid: "uid-1" } });
    expect(renewed.metadata).toEqual({
      name: "n1",
      namespace: "kube-node-lease",
      resourceVersion: "7",
      ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n1", uid: "uid-1" }],
    });
    expect(base.metadata).not.toHaveProperty("ownerReferences");
  });
  const owned = {
    metadata: { name: "n1", namespace: "kube-node-lease", resourceVersion: "7", ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n1", uid: "uid-1" }] },
    spec: { holderIdentity: "n1", leaseDurationSeconds: 40, renewTime: "2026-01-01T00:00:00.000000Z" },
  };
  test.each([
    ["renewTime alone: a merge patch with the resourceVersion as precondition", owned, undefined, { metadata: { resourceVersion: "7" }, spec: { renewTime: "2026-01-01T00:00:10.000000Z" } }],
    ["the owner reference added at the same time: the whole Lease", { ...owned, metadata: { ...owned.metadata, ownerReferences: undefined } }, { metadata: { uid: "uid-1" } }, undefined],
    ["a Lease without a resourceVersion (never stored): the whole Lease", { ...owned, metadata: { ...owned.metadata, resourceVersion: undefined } }, undefined, undefined],
  ])("renewal: %s", (_name, base, node, want) => {
    const next = newLease(base as never, opts, Date.UTC(2026, 0, 1, 0, 0, 10), node as never);
    expect(renewalPatch(base as never, next)).toEqual(want as never);
  });
});

test("aggregated messages: one as is, several in brackets, duplicates once", () => {
  expect(aggregateMessage(["a"])).toBe("a");
  expect(aggregateMessage(["a", "b", "a"])).toBe("[a, b]");
});
