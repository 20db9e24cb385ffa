import { describe, expect, test } from "bun:test";
import { FORWARD_CHAIN, POSTROUTING_CHAIN, renderRules } from "../../../src/network/masquerade.ts";

describe("the masquerade rules", () => {
  test("pod to pod across nodes keeps its source; everything else from this node's pods is masqueraded", () => {
    const text = renderRules({ local: ["10.90.0.0/24"], cluster: ["10.90.1.0/24", "10.90.0.0/24", "fd00::/64"] }, 4);
    expect(text.split("\n")).toEqual([
      "*nat",
      `:${POSTROUTING_CHAIN} - [0:0]`,
      `-A ${POSTROUTING_CHAIN} -s 10.90.0.0/24 -d 10.90.0.0/24 -m comment --comment "bunlet: pod to pod, source kept" -j RETURN`,
      `-A ${POSTROUTING_CHAIN} -s 10.90.0.0/24 -d 10.90.1.0/24 -m comment --comment "bunlet: pod to pod, source kept" -j RETURN`,
      `-A ${POSTROUTING_CHAIN} -s 10.90.0.0/24 ! -d 224.0.0.0/4 -m comment --comment "bunlet: leaving the pod ranges" -j MASQUERADE`,
      "COMMIT",
      "*filter",
      `:${FORWARD_CHAIN} - [0:0]`,
      `-A ${FORWARD_CHAIN} -s 10.90.0.0/24 -m comment --comment "bunlet: pod traffic" -j ACCEPT`,
      `-A ${FORWARD_CHAIN} -d 10.90.0.0/24 -m comment --comment "bunlet: pod traffic" -j ACCEPT`,
      `-A ${FORWARD_CHAIN} -s 10.90.1.0/24 -m comment --comment "bunlet: pod traffic" -j ACCEPT`,
      `-A ${FORWARD_CHAIN} -d 10.90.1.0/24 -m comment --comment "bunlet: pod traffic" -j ACCEPT`,
      "COMMIT",
      "",
    ]);
  });
  test("IPv6 rules hold only IPv6 ranges and spare multicast", () => {
    const text = renderRules({ local: ["10.90.0.0/24", "fd00:90::/64"], cluster: ["fd00:91::/64"] }, 6);
    expect(text).toContain(`-A ${POSTROUTING_CHAIN} -s fd00:90::/64 -d fd00:91::/64`);
    expect(text).toContain(`-s fd00:90::/64 ! -d ff00::/8`);
    expect(text).not.toContain("10.90.0.0/24");
  });
});
