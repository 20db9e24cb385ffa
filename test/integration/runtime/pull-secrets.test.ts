// Pull secrets (upstream NodeConformance "Container Runtime ... should be able to pull from private
// registry with secret"): the pod's imagePullSecrets are read through the API objects and sent as
// PullImage's AuthConfig for the image's registry, each credential in turn, against the fake
// CRI's registry that answers 401 without the right user and password.
import { afterEach, describe, expect, test } from "bun:test";
import type { Secret } from "../../../src/api/index.ts";
import type { ObjectReference } from "kubernetes-types/core/v1";
import { ObjectNotFoundError, type EnvObjects } from "../../../src/runtime/index.ts";
import { c, uniquePod, startHarness, type Harness } from "./harness.ts";

const PRIVATE = "registry.example:5000/team/private:1.0";
const b64 = (s: string) => Buffer.from(s).toString("base64");
const regcred = (name: string, registry: string, username: string, password: string): Secret => ({
  metadata: { name, namespace: "ns" },
  type: "kubernetes.io/dockerconfigjson",
  data: { ".dockerconfigjson": b64(JSON.stringify({ auths: { [registry]: { auth: b64(`${username}:${password}`) } } })) },
});

let h: Harness;
afterEach(() => h.close());
const events: { ref: ObjectReference; type: string; reason: string; message: string }[] = [];

async function start(secrets: Secret[]): Promise<Harness> {
  events.length = 0;
  const objects: EnvObjects = {
    configMap: async (_ns, name) => {
      throw new ObjectNotFoundError("configmap", name);
    },
    secret: async (ns, name) => {
      const s = secrets.find((x) => x.metadata.namespace === ns && x.metadata.name === name);
      if (!s) throw new ObjectNotFoundError("secret", name);
      return s;
    },
    services: async () => [],
  };
  h = await startHarness({ envObjects: objects, recorder: { event: (ref, type, reason, message) => void events.push({ ref, type, reason, message }) } });
  h.fake.setPullable(PRIVATE, true);
  h.fake.requirePullAuth(PRIVATE, "e2e", "s3cret");
  return h;
}

const pulls = () => h.fake.calls.filter((x) => x.method === "PullImage").map((x) => (x.request as unknown as { auth?: { username: string; password: string } }).auth);
const privatePod = (secrets: string[]) => uniquePod({ imagePullSecrets: secrets.map((name) => ({ name })), containers: [c("a", { image: PRIVATE, imagePullPolicy: "Always" })] });

describe("image pull secrets", () => {
  test("the pod's secret for the image's registry is sent as the AuthConfig and the pull succeeds", async () => {
    await start([regcred("regcred", "registry.example:5000", "e2e", "s3cret")]);
    const result = await h.sync(privatePod(["regcred"]));
    expect(result.error).toBeUndefined();
    expect(pulls()).toMatchObject([{ username: "e2e", password: "s3cret", auth: "", serverAddress: "" }]);
  });

  test("without the secret the registry answers 401: ErrImagePull with containerd's message", async () => {
    await start([]);
    const pod = uniquePod({ containers: [c("a", { image: PRIVATE, imagePullPolicy: "Always" })] });
    await h.sync(pod);
    expect(pulls()).toEqual([undefined]);
    expect(h.rm.getContainerWaitingReason(pod.metadata.uid!, "a")).toMatchObject({ reason: "ErrImagePull", message: expect.stringContaining("401 Unauthorized") });
  });

  test("a secret for another registry sends nothing; one for the same host on another port neither", async () => {
    await start([regcred("other", "quay.io", "e2e", "s3cret"), regcred("port", "registry.example:5001", "e2e", "s3cret")]);
    await h.sync(privatePod(["other", "port"]));
    expect(pulls()).toEqual([undefined]);
  });

  test("each credential is tried in turn until one pulls; all failing is one aggregated error", async () => {
    await start([regcred("wrong", "registry.example:5000", "e2e", "nope"), regcred("right", "registry.example:5000/team", "e2e", "s3cret")]);
    const result = await h.sync(privatePod(["wrong", "right"]));
    expect(result.error).toBeUndefined();
    // The longer key (with the path) comes first.
    expect(pulls()?.map((a) => a?.password)).toEqual(["s3cret"]);

    await h.close();
    await start([regcred("a", "registry.example:5000", "e2e", "nope"), regcred("b", "registry.example:5000/team", "e2e", "wrong")]);
    const pod = privatePod(["a", "b"]);
    await h.sync(pod);
    expect(pulls()?.map((a) => a?.password)).toEqual(["wrong", "nope"]);
    const message = h.rm.getContainerWaitingReason(pod.metadata.uid!, "a")?.message ?? "";
    // utilerrors' aggregate: the same message twice is said once, without brackets.
    expect(message).toStartWith("failed to pull and unpack image");
    expect(message.match(/401 Unauthorized/g)).toHaveLength(1);
  });

  test("a pull secret that cannot be read is logged and named in FailedToRetrieveImagePullSecret when the pull fails; no credential is logged", async () => {
    await start([regcred("regcred", "registry.example:5000", "e2e", "s3cret")]);
    const pod = privatePod(["gone", "", "regcred-typo"]);
    await h.sync(pod);
    expect(h.log.lines.filter((l) => l.msg === "Unable to retrieve pull secret, the image pull may not succeed.").map((l) => (l.secret as { name: string }).name)).toEqual(["gone", "regcred-typo"]);
    expect(events.find((e) => e.reason === "FailedToRetrieveImagePullSecret")).toMatchObject({
      type: "Warning",
      ref: { kind: "Pod", name: pod.metadata.name },
      message: "Unable to retrieve some image pull secrets (gone, regcred-typo); attempting to pull the image may not succeed.",
    });
    await h.sync(privatePod(["regcred"]));
    expect(JSON.stringify(h.log.lines)).not.toContain("s3cret");
  });

  test("a malformed pull secret fails the pull with ErrImagePull naming the secret", async () => {
    await start([{ metadata: { name: "bad", namespace: "ns" }, type: "kubernetes.io/dockerconfigjson", data: { ".dockerconfigjson": b64("{") } }]);
    const pod = privatePod(["bad"]);
    await h.sync(pod);
    expect(pulls()).toEqual([]);
    expect(h.rm.getContainerWaitingReason(pod.metadata.uid!, "a")).toEqual({ reason: "ErrImagePull", message: "secret ns/bad: .dockerconfigjson is not valid JSON" });
  });
});
