import { describe, expect, test } from "bun:test";
import type { Container, ResourceRequirements } from "../../../src/api/index.ts";
import { makeEnvironmentVariables } from "../../../src/runtime/env.ts";
import { containerConfigError } from "../../../src/runtime/errors.ts";
import { makePod } from "../../fixtures/pods.ts";

const ctx = { nodeName: "n1", podIPs: [], hostIPs: [], cpuCapacityMilli: 4000, memoryCapacity: 2 ** 33 };

/** The value the kubelet puts in an env var with this resourceFieldRef. */
async function resourceEnv(resources: ResourceRequirements, resource: string, divisor?: string, containerName?: string): Promise<string> {
  const self: Container = {
    name: "foo",
    resources,
    env: [{ name: "V", valueFrom: { resourceFieldRef: { resource, divisor, containerName } } }],
  };
  const init: Container = { name: "init-foo", resources };
  const pod = makePod({ name: "p", namespace: "ns", spec: { containers: [self], initContainers: [init] } });
  return (await makeEnvironmentVariables(pod, self, ctx))[0].value;
}

describe("downward API resource values (ExtractContainerResourceValue)", () => {
  // pkg/api/v1/resource TestExtractResourceValue, for the container and for the init container.
  const table: [string, string | undefined, ResourceRequirements, string][] = [
    ["limits.cpu", undefined, { limits: { cpu: "9" } }, "9"],
    ["requests.cpu", undefined, {}, "0"],
    ["requests.cpu", undefined, { requests: { cpu: "8" } }, "8"],
    ["requests.cpu", undefined, { requests: { cpu: "100m" } }, "1"],
    ["requests.cpu", "100m", { requests: { cpu: "1200m" } }, "12"],
    ["requests.memory", undefined, { requests: { memory: "100Mi" } }, "104857600"],
    ["requests.memory", "1Mi", { requests: { memory: "100Mi" }, limits: { memory: "1Gi" } }, "100"],
    ["limits.memory", undefined, { requests: { memory: "10Mi" }, limits: { memory: "100Mi" } }, "104857600"],
  ];
  test.each(table)("%s / %s of %j is %s", async (resource, divisor, resources, expected) => {
    expect(await resourceEnv(resources, resource, divisor)).toBe(expected);
    expect(await resourceEnv(resources, resource, divisor, "init-foo")).toBe(expected);
  });

  // What a static pod measured under bunlet before quantities were exact.
  test.each([
    ["requests.cpu", "1m", { requests: { cpu: "700m" } }, "700"],
    ["requests.cpu", "100m", { requests: { cpu: "700m" } }, "7"],
    ["limits.cpu", "1m", { limits: { cpu: "9m" } }, "9"],
    ["limits.memory", undefined, { limits: { memory: "8.3M" } }, "8300000"],
    ["limits.memory", "1k", { limits: { memory: "8.3M" } }, "8300"],
    ["limits.memory", "1Mi", { limits: { memory: "8.3M" } }, "8"],
    ["requests.ephemeral-storage", "1Ki", { requests: { "ephemeral-storage": "1.5Ki" } }, "2"],
    ["limits.hugepages-2Mi", "1Mi", { limits: { "hugepages-2Mi": "4Mi" } }, "4"],
    ["requests.cpu", "0", { requests: { cpu: "1.5" } }, "2"],
  ] as [string, string | undefined, ResourceRequirements, string][])("%s / %s of %j is %s", async (resource, divisor, resources, expected) => {
    expect(await resourceEnv(resources, resource, divisor)).toBe(expected);
  });

  test("unset or zero limits are the node's allocatable, except for a named init container", async () => {
    expect(await resourceEnv({}, "limits.cpu", "1m")).toBe("4000");
    expect(await resourceEnv({ limits: { cpu: "0" } }, "limits.cpu")).toBe("4");
    expect(await resourceEnv({}, "limits.memory", "1Gi")).toBe("8");
    expect(await resourceEnv({}, "limits.memory", undefined, "foo")).toBe(String(2 ** 33));
    expect(await resourceEnv({}, "limits.memory", undefined, "init-foo")).toBe("0");
  });

  test("unknown resources and containers fail the container config", async () => {
    await expect(resourceEnv({}, "limits.gpu")).rejects.toThrow(containerConfigError("unsupported container resource : limits.gpu"));
    await expect(resourceEnv({}, "limits.cpu", undefined, "nope")).rejects.toThrow(containerConfigError("container nope not found"));
  });
});
