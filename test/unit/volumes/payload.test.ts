// The files of configMap, secret and downwardAPI volumes (MakePayload, CollectData): all keys or
// the listed items, modes, optional, binaryData, and the kubelet's messages.
import { describe, expect, test } from "bun:test";
import type { ConfigMap, Secret } from "../../../src/api/index.ts";
import { configMapPayload, downwardAPIPayload, secretPayload } from "../../../src/volumes/payload.ts";
import type { Payload } from "../../../src/volumes/atomic-writer.ts";
import { makePod } from "../../fixtures/pods.ts";

const dec = new TextDecoder();
const show = (p: Payload) => Object.fromEntries([...p].map(([k, v]) => [k, `${dec.decode(v.data)} ${v.mode.toString(8)}`]));
const cm: ConfigMap = { metadata: { name: "cm" }, data: { a: "1", b: "2" }, binaryData: { bin: Buffer.from([0xff, 0x00]).toString("base64") } };
const secret: Secret = { metadata: { name: "s" }, data: { pass: Buffer.from("s3cret").toString("base64") } };

describe("configMap and secret payloads", () => {
  test("every key, data and binaryData, with the default mode", () => {
    const p = configMapPayload(undefined, cm, 0o644, false);
    expect([...p.keys()]).toEqual(["a", "b", "bin"]);
    expect([...p.get("bin")!.data]).toEqual([0xff, 0x00]);
    expect(p.get("a")!.mode).toBe(0o644);
  });
  test("only the listed items, at their paths, with their own modes", () => {
    expect(show(configMapPayload([{ key: "a", path: "dir/a.txt", mode: 0o600 }, { key: "b", path: "b" }], cm, 0o444, false))).toEqual({
      "dir/a.txt": "1 600",
      b: "2 444",
    });
  });
  test("a listed key that is missing fails, unless optional", () => {
    expect(() => configMapPayload([{ key: "nope", path: "x" }], cm, 0o644, false)).toThrow("configmap references non-existent config key: nope");
    expect(show(configMapPayload([{ key: "nope", path: "x" }], cm, 0o644, true))).toEqual({});
    expect(() => secretPayload([{ key: "nope", path: "x" }], secret, 0o644, false)).toThrow("secret references non-existent secret key: nope");
  });
  test("secret data is decoded", () => {
    expect(show(secretPayload(undefined, secret, 0o400, false))).toEqual({ pass: "s3cret 400" });
  });
});

describe("downwardAPI payload", () => {
  const pod = makePod({
    name: "p",
    namespace: "ns",
    metadata: { uid: "u1", labels: { b: "2", a: "1" }, annotations: { note: 'say "hi"' } },
    spec: { containers: [{ name: "c", resources: { requests: { cpu: "250m" }, limits: { memory: "64Mi" } } }] },
  });
  const node = { nodeName: "n", podIPs: [], hostIPs: [], cpuCapacityMilli: 4000, memoryCapacity: 2 ** 30 };
  test.each([
    ["metadata.labels", 'a="1"\nb="2"'],
    ["metadata.annotations", 'note="say \\"hi\\""'],
    ["metadata.labels['b']", "2"],
    ["metadata.name", "p"],
    ["metadata.namespace", "ns"],
    ["metadata.uid", "u1"],
  ])("%s is %s", (fieldPath, value) => {
    expect(dec.decode(downwardAPIPayload([{ path: "f", fieldRef: { fieldPath } }], pod, 0o644, node).get("f")!.data)).toBe(value);
  });
  test("resource values by container name with divisors; unset limits are the node's", () => {
    const items = [
      { path: "cpu_req", resourceFieldRef: { containerName: "c", resource: "requests.cpu", divisor: "1m" } },
      { path: "mem_limit", resourceFieldRef: { containerName: "c", resource: "limits.memory", divisor: "1Mi" } },
      { path: "cpu_limit", resourceFieldRef: { containerName: "c", resource: "limits.cpu" } },
    ];
    expect(show(downwardAPIPayload(items, pod, 0o644, node))).toEqual({ cpu_req: "250 644", mem_limit: "64 644", cpu_limit: "4 644" });
  });
  test("a field a volume may not show fails with the kubelet's message", () => {
    expect(() => downwardAPIPayload([{ path: "ip", fieldRef: { fieldPath: "status.podIP" } }], pod, 0o644, node)).toThrow("unsupported fieldPath: status.podIP");
  });
});
