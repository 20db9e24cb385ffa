import { expect, test } from "bun:test";
import { hugePageName, machineCapacity } from "../../../src/cm/capacity.ts";

test.each([
  [4096, "4Ki"],
  [2097152, "2Mi"],
  [1073741824, "1Gi"],
  [1000, "1000"],
])("huge page size %d is named %s", (bytes, name) => {
  expect(hugePageName(bytes)).toBe(name);
});

test("capacity: cpu in millicores, memory, ephemeral storage, pods and one resource per huge page size", () => {
  const capacity = machineCapacity({ numCores: 2, memoryCapacityBytes: 4096, rootfsCapacityBytes: 8192, hugePages: [{ pageSizeBytes: 2097152, pages: 3 }] }, 110);
  expect(Object.fromEntries(capacity)).toEqual({ cpu: 2000n, "ephemeral-storage": 8192n, memory: 4096n, pods: 110n, "hugepages-2Mi": 6291456n });
});
