import { create } from "@bufbuild/protobuf";
import { expect, test } from "bun:test";
import { ContainerState, PodSandboxState, type CriClient } from "../../../src/cri/index.ts";
import { ContainerSchema, PodSandboxSchema } from "../../../src/cri/testing.ts";
import { createMemoryLogger } from "../../../src/lib/testing.ts";
import { runningPodList } from "../../../src/server/api-routes.ts";
import { createHandler } from "../../../src/server/handler.ts";
import { apiRoutes } from "../../../src/server/index.ts";

const sandboxes = [
  create(PodSandboxSchema, { id: "s1", metadata: { name: "web", namespace: "default", uid: "u1" }, state: PodSandboxState.SANDBOX_READY }),
  create(PodSandboxSchema, { id: "s0", metadata: { name: "old", namespace: "default", uid: "u0" }, state: PodSandboxState.SANDBOX_NOTREADY }),
];
const containers = [
  create(ContainerSchema, { id: "c1", podSandboxId: "s1", metadata: { name: "app" }, image: { image: "docker.io/library/busybox:1.36" }, state: ContainerState.CONTAINER_RUNNING }),
  create(ContainerSchema, { id: "c2", podSandboxId: "s1", metadata: { name: "done" }, image: { image: "busybox" }, state: ContainerState.CONTAINER_EXITED }),
  create(ContainerSchema, { id: "c3", podSandboxId: "s0", metadata: { name: "x" }, image: { image: "busybox" }, state: ContainerState.CONTAINER_RUNNING }),
];

test("/runningpods/: the ready sandboxes with their running containers, as the kubelet's ToAPIPod writes them", async () => {
  const cri = { runtime: { listPodSandbox: async () => ({ items: sandboxes }), listContainers: async () => ({ containers }) } } as unknown as CriClient;
  const handle = createHandler(apiRoutes({ configz: () => ({ kubeletconfig: { port: 10250 } }), cri, logs: false }), createMemoryLogger());
  const res = await handle("GET", "/runningpods/");
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(await res.text()).toBe(
    JSON.stringify({
      kind: "PodList",
      apiVersion: "v1",
      metadata: {},
      items: [
        {
          metadata: { name: "web", namespace: "default", uid: "u1", creationTimestamp: null },
          spec: { containers: [{ name: "app", image: "docker.io/library/busybox:1.36", resources: {} }] },
          status: {},
        },
      ],
    }),
  );
  expect(runningPodList([], containers).items).toEqual([]);
  expect(await (await handle("GET", "/configz")).json()).toEqual({ kubeletconfig: { port: 10250 } });
});
