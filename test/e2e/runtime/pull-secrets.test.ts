/**
 * Pulls from a private registry (the NodeConformance spec "should be able to pull from private
 * registry with secret"): a docker-registry that asks for a user and password, a real containerd,
 * and the runtime manager with the pod's imagePullSecrets read as the apiserver would serve them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Secret } from "../../../src/api/index.ts";
import { runningPodFromStatus } from "../../../src/container/index.ts";
import { ObjectNotFoundError } from "../../../src/runtime/index.ts";
import { startTestRegistry, type TestRegistry } from "../../harness/registry.ts";
import { busybox, e2ePod, eventually, startE2eRuntime, type E2eRuntime } from "./setup.ts";

const AUTH = { username: "puller", password: "pull-s3cret-9f2c" };

let registry: TestRegistry;
let rt: E2eRuntime;
beforeAll(async () => {
  registry = await startTestRegistry({ auth: AUTH });
  // The Secrets of the pod's namespace: one dockerconfigjson for the registry, as `kubectl create
  // secret docker-registry` writes it.
  const dockerConfig = { auths: { [registry.host]: { auth: Buffer.from(`${AUTH.username}:${AUTH.password}`).toString("base64") } } };
  const secrets: Record<string, Secret> = {
    regcred: { apiVersion: "v1", kind: "Secret", metadata: { name: "regcred" }, type: "kubernetes.io/dockerconfigjson", data: { ".dockerconfigjson": Buffer.from(JSON.stringify(dockerConfig)).toString("base64") } },
  };
  rt = await startE2eRuntime("rt-pull-secrets", registry.host, {
    configMap: async (_ns, name) => {
      throw new ObjectNotFoundError("configmap", name);
    },
    secret: async (_ns, name) => {
      const secret = secrets[name];
      if (secret === undefined) throw new ObjectNotFoundError("secret", name);
      return secret;
    },
    services: async () => [],
  });
}, 120_000);
afterAll(async () => {
  await rt?.stop();
  await registry?.stop();
}, 60_000);

describe("pulls from a registry that asks for credentials", () => {
  test("without imagePullSecrets the registry refuses the pull: ErrImagePull", async () => {
    const pod = e2ePod("no-secret", { containers: [busybox("c", ["sleep", "3600"], { image: registry.busyboxImage, imagePullPolicy: "Always" })] });
    const result = await rt.sync(pod);
    expect(result.steps.find((s) => s.target === "c")?.error?.reason).toBe("ErrImagePull");
    expect((await rt.status(pod)).containerStatuses).toEqual([]);
    await rt.rm.killPod(pod, runningPodFromStatus(await rt.status(pod)), { gracePeriodOverride: 2, signal: rt.signal });
  }, 60_000);

  test("with the pod's imagePullSecrets the image is pulled and the container runs", async () => {
    const pod = e2ePod("with-secret", {
      imagePullSecrets: [{ name: "regcred" }],
      containers: [busybox("c", ["sleep", "3600"], { image: registry.busyboxImage, imagePullPolicy: "Always" })],
    });
    expect((await rt.sync(pod)).error).toBeUndefined();
    const status = await eventually("the container to run", async () => {
      const st = await rt.status(pod);
      return st.containerStatuses.find((c) => c.state === "running") ? st : undefined;
    });
    expect(rt.log.lines.some((l) => l.msg === "Successfully pulled image" && l.image === registry.busyboxImage)).toBe(true);
    await rt.rm.killPod(pod, runningPodFromStatus(status), { gracePeriodOverride: 2, signal: rt.signal });
  }, 60_000);

  test("the password and its base64 never reach the log", () => {
    const text = JSON.stringify(rt.log.lines);
    expect(text).not.toContain(AUTH.password);
    expect(text).not.toContain(Buffer.from(`${AUTH.username}:${AUTH.password}`).toString("base64"));
  });
});
