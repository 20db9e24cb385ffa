// The kubelet's labels and annotations on CRI objects: what bunlet writes, it reads back.
import { describe, expect, test } from "bun:test";
import { containerInfoFromAnnotations, newContainerAnnotations } from "../../../src/container/labels.ts";
import { makePod } from "../../fixtures/pods.ts";

describe("labels and annotations round-trip", () => {
  test("what bunlet writes, it reads back to rebuild an orphan", () => {
    const p = makePod({ name: "p", metadata: { deletionGracePeriodSeconds: 4 }, spec: { terminationGracePeriodSeconds: 12 } });
    const container = {
      name: "c",
      image: "busybox",
      ports: [{ containerPort: 80, name: "http" }],
      lifecycle: { preStop: { httpGet: { path: "/stop", port: "http" } } },
    };
    const info = containerInfoFromAnnotations(newContainerAnnotations(container, p, 3));
    expect(info).toMatchObject({
      restartCount: 3,
      podDeletionGracePeriod: 4,
      podTerminationGracePeriod: 12,
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
      preStopHandler: container.lifecycle.preStop,
      containerPorts: container.ports,
    });
  });

  test("missing or malformed annotations read as zero and undefined", () => {
    expect(containerInfoFromAnnotations({ "io.kubernetes.container.restartCount": "x" })).toMatchObject({
      hash: "",
      restartCount: 0,
      podTerminationGracePeriod: undefined,
      preStopHandler: undefined,
    });
  });
});
