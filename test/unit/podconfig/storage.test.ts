import { describe, expect, test } from "bun:test";
import {
  ConfigFirstSeenAnnotationKey,
  ConfigMirrorAnnotationKey,
  ConfigSourceAnnotationKey,
  type Pod,
} from "../../../src/api/index.ts";
import { silentLogger } from "../../../src/lib/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";
import type { PodUpdate } from "../../../src/podconfig/index.ts";
import { PodStorage, type InvalidPodEvent } from "../../../src/podconfig/storage.ts";
import { makePod } from "../../fixtures/pods.ts";

const TestSource = "test";

/** The upstream tests' CreateValidPod: uid = name + namespace. */
function validPod(name: string, namespace = "new", edit?: (pod: Pod) => void): Pod {
  const pod = makePod({
    name,
    namespace,
    metadata: { uid: name + namespace },
    spec: {
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      containers: [{ name: "ctr", image: "image", imagePullPolicy: "IfNotPresent", terminationMessagePolicy: "File" }],
    },
  });
  edit?.(pod);
  return pod;
}

const newSpec = (pod: Pod) => {
  pod.spec.containers = [{ name: "bar", image: "test", imagePullPolicy: "IfNotPresent", terminationMessagePolicy: "File" }];
};
const newStatus = (message: string) => (pod: Pod) => {
  pod.status = { message };
};
const deleted = (pod: Pod) => {
  pod.metadata.deletionTimestamp = "2026-01-01T00:00:10Z";
};
const annotated = (annotations: Record<string, string>) => (pod: Pod) => {
  pod.metadata.annotations = annotations;
};
const labelled = (labels: Record<string, string>) => (pod: Pod) => {
  pod.metadata.labels = labels;
};

function storage(sources = [TestSource], clock = new FakeClock()) {
  return new PodStorage({ sources, clock, log: silentLogger });
}

/** An update as "OP name,name" (pod names sorted by namespace, as upstream compares them). */
function summary(updates: PodUpdate[]): string[] {
  return updates.map((u) => `${u.op} ${u.pods.map((p) => `${p.metadata.name}/${p.metadata.namespace}`).join(",")}`.trim());
}

interface Step {
  snapshot: Pod[];
  expect: string[];
}

const cases: { name: string; steps: Step[] }[] = [
  { name: "a new pod is an ADD", steps: [{ snapshot: [validPod("foo")], expect: ["ADD foo/new"] }] },
  {
    name: "a pod with an empty namespace is still added",
    steps: [{ snapshot: [validPod("foo", "")], expect: ["ADD foo/"] }],
  },
  {
    name: "pods with the same name in different namespaces are both added",
    steps: [
      { snapshot: [validPod("foo", "default")], expect: ["ADD foo/default"] },
      { snapshot: [validPod("foo", "default"), validPod("foo", "new")], expect: ["ADD foo/new"] },
    ],
  },
  {
    name: "an identical snapshot gives nothing",
    steps: [
      { snapshot: [validPod("foo")], expect: ["ADD foo/new"] },
      { snapshot: [validPod("foo")], expect: [] },
    ],
  },
  {
    name: "a changed container spec is an UPDATE",
    steps: [
      { snapshot: [validPod("foo")], expect: ["ADD foo/new"] },
      { snapshot: [validPod("foo", "new", newSpec)], expect: ["UPDATE foo/new"] },
    ],
  },
  {
    name: "an empty snapshot removes the pods",
    steps: [
      { snapshot: [validPod("foo"), validPod("bar")], expect: ["ADD foo/new,bar/new"] },
      { snapshot: [], expect: ["REMOVE foo/new,bar/new"] },
    ],
  },
  {
    name: "a deletionTimestamp is a DELETE",
    steps: [
      { snapshot: [validPod("foo")], expect: ["ADD foo/new"] },
      { snapshot: [validPod("foo", "new", deleted)], expect: ["DELETE foo/new"] },
    ],
  },
  {
    name: "a changed deletionGracePeriodSeconds alone is an UPDATE",
    steps: [
      { snapshot: [validPod("foo")], expect: ["ADD foo/new"] },
      { snapshot: [validPod("foo", "new", (p) => (p.metadata.deletionGracePeriodSeconds = 5))], expect: ["UPDATE foo/new"] },
    ],
  },
  {
    name: "snapshot {foo,foo2,foo3} then {foo2',foo3,foo4} is REMOVE foo, ADD foo4, UPDATE foo2",
    steps: [
      { snapshot: [validPod("foo"), validPod("foo2"), validPod("foo3")], expect: ["ADD foo/new,foo2/new,foo3/new"] },
      {
        snapshot: [validPod("foo2", "new", newSpec), validPod("foo3"), validPod("foo4")],
        expect: ["REMOVE foo/new", "ADD foo4/new", "UPDATE foo2/new"],
      },
    ],
  },
  {
    name: "every kind of change in one snapshot comes out as REMOVE, ADD, UPDATE, DELETE, RECONCILE",
    steps: [
      { snapshot: [validPod("a"), validPod("b"), validPod("c"), validPod("d")], expect: ["ADD a/new,b/new,c/new,d/new"] },
      {
        snapshot: [validPod("d", "new", newStatus("x")), validPod("c", "new", deleted), validPod("b", "new", newSpec), validPod("e")],
        expect: ["REMOVE a/new", "ADD e/new", "UPDATE b/new", "DELETE c/new", "RECONCILE d/new"],
      },
    ],
  },
  {
    name: "a status-only change is a RECONCILE",
    steps: [
      { snapshot: [validPod("changeable"), validPod("constant")], expect: ["ADD changeable/new,constant/new"] },
      { snapshot: [validPod("changeable"), validPod("constant")], expect: [] },
      { snapshot: [validPod("changeable", "new", newStatus("1")), validPod("constant")], expect: ["RECONCILE changeable/new"] },
    ],
  },
  {
    name: "a status change with a spec change is only an UPDATE",
    steps: [
      { snapshot: [validPod("changeable"), validPod("constant")], expect: ["ADD changeable/new,constant/new"] },
      {
        snapshot: [validPod("changeable", "new", (p) => (newStatus("2")(p), newSpec(p))), validPod("constant")],
        expect: ["UPDATE changeable/new"],
      },
    ],
  },
  {
    name: "the first empty snapshot is an empty ADD and later empty snapshots give nothing",
    steps: [
      { snapshot: [], expect: ["ADD"] },
      { snapshot: [], expect: [] },
      { snapshot: [validPod("foo")], expect: ["ADD foo/new"] },
    ],
  },
  {
    name: "a first snapshot with pods gives only their ADD",
    steps: [{ snapshot: [validPod("foo")], expect: ["ADD foo/new"] }],
  },
  {
    name: "adding, changing and deleting an annotation are UPDATEs",
    steps: [
      {
        snapshot: [validPod("foo1"), validPod("foo2", "new", annotated({ "kubernetes.io/blah": "blah" })), validPod("foo3")],
        expect: ["ADD foo1/new,foo2/new,foo3/new"],
      },
      {
        snapshot: [validPod("foo1"), validPod("foo2", "new", annotated({ "kubernetes.io/blah": "superblah" })), validPod("foo3")],
        expect: ["UPDATE foo2/new"],
      },
      {
        snapshot: [
          validPod("foo1"),
          validPod("foo2", "new", annotated({ "kubernetes.io/blah": "superblah", "kubernetes.io/otherblah": "doh" })),
          validPod("foo3"),
        ],
        expect: ["UPDATE foo2/new"],
      },
      {
        snapshot: [validPod("foo1"), validPod("foo2", "new", annotated({ "kubernetes.io/otherblah": "doh" })), validPod("foo3")],
        expect: ["UPDATE foo2/new"],
      },
    ],
  },
  {
    name: "a changed label is an UPDATE",
    steps: [
      { snapshot: [validPod("foo2", "new", labelled({ key: "value" }))], expect: ["ADD foo2/new"] },
      { snapshot: [validPod("foo2", "new", labelled({ key: "newValue" }))], expect: ["UPDATE foo2/new"] },
    ],
  },
  {
    name: "bunlet's own annotations never make a pod differ",
    steps: [
      { snapshot: [validPod("foo")], expect: ["ADD foo/new"] },
      {
        snapshot: [validPod("foo", "new", annotated({ [ConfigFirstSeenAnnotationKey]: "x", [ConfigMirrorAnnotationKey]: "y", [ConfigSourceAnnotationKey]: "z" }))],
        expect: [],
      },
    ],
  },
  {
    name: "a repeated namespace/name in one snapshot is dropped, the first one wins",
    steps: [
      { snapshot: [validPod("foo"), validPod("foo", "new", (p) => (p.metadata.uid = "other"))], expect: ["ADD foo/new"] },
      { snapshot: [validPod("foo")], expect: [] },
    ],
  },
  {
    name: "a repeated UID in one snapshot is dropped, the first one wins",
    steps: [{ snapshot: [validPod("foo"), validPod("bar", "new", (p) => (p.metadata.uid = "foonew"))], expect: ["ADD foo/new"] }],
  },
];

describe("PodStorage.merge turns snapshots into the kubelet's ordered updates", () => {
  for (const c of cases) {
    test(c.name, () => {
      const s = storage();
      c.steps.forEach((step, i) => {
        const got = s.merge(TestSource, step.snapshot);
        expect({ step: i, updates: summary(got) }).toEqual({ step: i, updates: step.expect });
        for (const u of got) expect(u.source).toBe(TestSource);
      });
    });
  }
});

describe("PodStorage.merge details", () => {
  test("every stored pod carries its source and first-seen time, which an UPDATE keeps", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
    const s = storage([TestSource], clock);
    const [add] = s.merge(TestSource, [validPod("foo")]);
    expect(add.pods[0].metadata.annotations).toEqual({
      [ConfigSourceAnnotationKey]: TestSource,
      [ConfigFirstSeenAnnotationKey]: "2026-01-02T03:04:05.678000000Z",
    });
    await clock.advance(60_000);
    const [update] = s.merge(TestSource, [validPod("foo", "new", (p) => (newSpec(p), annotated({ a: "b" })(p)))]);
    expect(update.op).toBe("UPDATE");
    expect(update.pods[0].metadata.annotations).toEqual({
      a: "b",
      [ConfigSourceAnnotationKey]: TestSource,
      [ConfigFirstSeenAnnotationKey]: "2026-01-02T03:04:05.678000000Z",
    });
    expect(update.pods[0].spec.containers[0].name).toBe("bar");
  });

  test("a RECONCILE carries the new status and an UPDATE the new spec, labels and status", () => {
    const s = storage();
    s.merge(TestSource, [validPod("foo")]);
    const [reconcile] = s.merge(TestSource, [validPod("foo", "new", newStatus("hello"))]);
    expect(reconcile.pods[0].status).toEqual({ message: "hello" });
    const [update] = s.merge(TestSource, [validPod("foo", "new", (p) => (labelled({ l: "1" })(p), newStatus("bye")(p)))]);
    expect(update.op).toBe("UPDATE");
    expect(update.pods[0].metadata.labels).toEqual({ l: "1" });
    expect(update.pods[0].status).toEqual({ message: "bye" });
  });

  test("a change brings the source's resourceVersion (the status sync patches against it); a version-only change emits nothing", () => {
    const s = storage();
    const rv = (v: string) => (p: Pod) => {
      p.metadata.resourceVersion = v;
    };
    s.merge(TestSource, [validPod("foo", "new", rv("5"))]);
    const [reconcile] = s.merge(TestSource, [validPod("foo", "new", (p) => (rv("6")(p), newStatus("hello")(p)))]);
    expect(reconcile.op).toBe("RECONCILE");
    expect(reconcile.pods[0].metadata.resourceVersion).toBe("6");
    const [update] = s.merge(TestSource, [validPod("foo", "new", (p) => (rv("8")(p), labelled({ l: "1" })(p), newStatus("hello")(p)))]);
    expect(update.op).toBe("UPDATE");
    expect(update.pods[0].metadata.resourceVersion).toBe("8");
    expect(s.merge(TestSource, [validPod("foo", "new", (p) => (rv("9")(p), labelled({ l: "1" })(p), newStatus("hello")(p)))])).toEqual([]);
  });

  test("a DELETE carries the stored pod with its deletion fields", () => {
    const s = storage();
    s.merge(TestSource, [validPod("foo")]);
    const [del] = s.merge(TestSource, [validPod("foo", "new", (p) => (deleted(p), (p.metadata.deletionGracePeriodSeconds = 30)))]);
    expect(del.op).toBe("DELETE");
    expect(del.pods[0].metadata.deletionTimestamp).toBe("2026-01-01T00:00:10Z");
    expect(del.pods[0].metadata.deletionGracePeriodSeconds).toBe(30);
    expect(del.pods[0].metadata.annotations?.[ConfigFirstSeenAnnotationKey]).toBeDefined();
  });

  test("emitted pods are copies: changing them changes nothing stored, and the input is left alone", () => {
    const s = storage();
    const input = [validPod("foo")];
    const [add] = s.merge(TestSource, input);
    expect(input[0].metadata.annotations).toBeUndefined();
    add.pods[0].spec.containers[0].image = "mutated";
    add.pods[0].metadata.annotations![ConfigSourceAnnotationKey] = "mutated";
    expect(s.merge(TestSource, [validPod("foo")])).toEqual([]);
    expect(s.pods(TestSource)[0].spec.containers[0].image).toBe("image");
  });

  test("a pod handed over again as the same object is not looked at again: a snapshot costs what changed", () => {
    const s = storage();
    let specReads = 0;
    const watched = (name: string) => {
      const pod = validPod(name);
      const { spec } = pod;
      Object.defineProperty(pod, "spec", { enumerable: true, get: () => (specReads++, spec) });
      return pod;
    };
    const pods = Array.from({ length: 50 }, (_, i) => watched(`p${i}`));
    expect(summary(s.merge(TestSource, pods)).map((u) => u.split(" ")[0])).toEqual(["ADD"]);
    specReads = 0;
    // One watch event: the store hands out the 50 pods it had and one new one.
    expect(summary(s.merge(TestSource, [...pods, validPod("new")]))).toEqual(["ADD new/new"]);
    expect(specReads).toBe(0);
    // A changed pod is a new object, and is compared.
    const changed = validPod("p3", "new", newStatus("changed"));
    expect(summary(s.merge(TestSource, [...pods.filter((p) => p.metadata.name !== "p3"), changed, validPod("new")]))).toEqual(["RECONCILE p3/new"]);
  });

  test("the stored pod never shares the source's objects", () => {
    const s = storage();
    const first = validPod("foo");
    s.merge(TestSource, [first]);
    first.spec.containers[0].image = "changed-behind-the-back";
    const second = validPod("foo", "new", (p) => ((p.metadata.labels = { a: "b" }), newStatus("second")(p)));
    expect(summary(s.merge(TestSource, [second]))).toEqual(["UPDATE foo/new"]);
    second.metadata.labels!.a = "changed";
    second.status!.message = "changed";
    second.spec.containers[0].image = "changed";
    const [stored] = s.pods(TestSource);
    expect([stored.spec.containers[0].image, stored.metadata.labels?.a, stored.status?.message]).toEqual(["image", "b", "second"]);
  });

  test("sources are independent: one source's snapshot never removes another's pods", () => {
    const s = storage(["a", "b"]);
    expect(summary(s.merge("a", [validPod("foo")]))).toEqual(["ADD foo/new"]);
    expect(summary(s.merge("b", []))).toEqual(["ADD"]);
    expect(summary(s.merge("b", [validPod("bar")]))).toEqual(["ADD bar/new"]);
    expect(summary(s.merge("a", []))).toEqual(["REMOVE foo/new"]);
    expect(s.pods().map((p) => p.metadata.name)).toEqual(["bar"]);
  });

  test("a dropped duplicate is logged with the pod and source and reported to onInvalid", () => {
    const log = createMemoryLogger();
    const events: InvalidPodEvent[] = [];
    const s = new PodStorage({ sources: [TestSource], clock: new FakeClock(), log, onInvalid: (e) => events.push(e) });
    s.merge(TestSource, [validPod("foo"), validPod("foo", "new", (p) => (p.metadata.uid = "second"))]);
    expect(events.map((e) => [e.reason, e.source, e.pod.metadata.uid])).toEqual([["DuplicatePodName", TestSource, "second"]]);
    expect(events[0].message).toContain('duplicate pod name "foo"');
    expect(log.lines.filter((l) => l.level === "warn")).toMatchObject([{ pod: { name: "foo", namespace: "new" }, source: TestSource, index: 1 }]);
  });
});

describe("source readiness", () => {
  test("all sources are seen once each has sent a snapshot and the consumer has seen them", () => {
    const s = storage(["file", "http"]);
    expect(s.allSourcesSeen()).toBe(false);
    s.merge("file", []);
    expect(s.allSourcesSeen()).toBe(false);
    expect(s.seenAllSources(new Set(["file", "http"]))).toBe(false);
    s.merge("http", [validPod("foo")]);
    expect(s.allSourcesSeen()).toBe(true);
    expect(s.seenAllSources(new Set(["file"]))).toBe(false);
    expect(s.seenAllSources(new Set(["file", "http"]))).toBe(true);
  });

  test("with no sources configured everything is seen at once", () => {
    expect(storage([]).seenAllSources(new Set())).toBe(true);
  });
});
