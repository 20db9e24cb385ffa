import { describe, expect, test } from "bun:test";
import { normalizeSysctlName, type Pod } from "../../../src/api/index.ts";
import { parseResolvConf, podDnsConfig } from "../../../src/runtime/dns.ts";
import { expand, mappingFor } from "../../../src/runtime/expansion.ts";
import { applyDefaultImageTag, effectivePullPolicy } from "../../../src/runtime/images.ts";
import { terminationGracePeriod } from "../../../src/runtime/kill.ts";
import { legacyLogSymlink, restartCountFromLogDir } from "../../../src/runtime/logs.ts";
import { makePod } from "../../fixtures/pods.ts";

describe("$(VAR) expansion", () => {
  const mapping = mappingFor(new Map([["A", "1"], ["EMPTY", ""]]));
  test.each([
    ["$(A)", "1"],
    ["x$(A)y$(A)", "x1y1"],
    ["$$(A)", "$(A)"],
    ["$(MISSING)", "$(MISSING)"],
    ["$(EMPTY)", ""],
    ["$(A", "$(A"],
    ["$A", "$A"],
    ["trailing$", "trailing$"],
    ["$$$(A)", "$1"],
  ])("%s expands to %s", (input, out) => expect(expand(input, mapping)).toBe(out));
});

describe("image names and pull policy", () => {
  test.each([
    ["busybox", "busybox:latest"],
    ["busybox:1.36", "busybox:1.36"],
    ["localhost:5000/x/busybox", "localhost:5000/x/busybox:latest"],
    ["localhost:5000/x/busybox:2", "localhost:5000/x/busybox:2"],
    [`busybox@sha256:${"a".repeat(64)}`, `busybox@sha256:${"a".repeat(64)}`],
  ])("default tag of %s is %s", (image, out) => expect(applyDefaultImageTag(image)).toBe(out));

  test("an invalid name is an error with distribution/reference's reason", () => {
    expect(() => applyDefaultImageTag("Bad Name")).toThrow(
      'couldn\'t parse image name "Bad Name": invalid reference format: repository name (library/Bad Name) must be lowercase',
    );
  });

  test.each([
    ["busybox", undefined, "Always"],
    ["busybox:latest", undefined, "Always"],
    ["busybox:1.36", undefined, "IfNotPresent"],
    [`busybox@sha256:${"b".repeat(64)}`, undefined, "IfNotPresent"],
    ["busybox", "Never", "Never"],
  ] as const)("%s with policy %s pulls %s", (image, imagePullPolicy, out) =>
    expect(effectivePullPolicy({ name: "c", image, imagePullPolicy })).toBe(out),
  );
});

describe("termination grace period", () => {
  const pod = (over: Partial<Pod["metadata"]> = {}, grace?: number): Pod => makePod({ name: "p", metadata: over, spec: { terminationGracePeriodSeconds: grace } });
  const container = { name: "c", livenessProbe: { terminationGracePeriodSeconds: 3 } };
  test.each([
    ["the spec's value", pod({}, 45), "", 45],
    ["the API default without one", pod(), "", 30],
    ["deletionGracePeriodSeconds first", pod({ deletionGracePeriodSeconds: 7 }, 45), "", 7],
    ["the probe's for a liveness kill", pod({}, 45), "LivenessProbe", 3],
    ["the pod's for a startup kill without a probe value", pod({}, 45), "StartupProbe", 45],
  ] as const)("%s", (_n, p, reason, out) => expect(terminationGracePeriod(p, container, reason)).toBe(out));
});

describe("sandbox details", () => {
  test.each([
    ["net.ipv4.ip_forward", "net.ipv4.ip_forward"],
    ["net/ipv4/ip_forward", "net.ipv4.ip_forward"],
    ["net/ipv4/conf/eth0.100/rp_filter", "net.ipv4.conf.eth0/100.rp_filter"],
  ])("sysctl %s is passed as %s", (name, out) => expect(normalizeSysctlName(name)).toBe(out));

  test("DNS: the node's resolver, the pod's additions, None drops the node's", () => {
    const node = parseResolvConf("# c\nnameserver 1.1.1.1\nnameserver 8.8.8.8\nsearch a.example b.example\noptions ndots:1 rotate\n");
    expect(node).toEqual({ servers: ["1.1.1.1", "8.8.8.8"], searches: ["a.example", "b.example"], options: ["ndots:1", "rotate"] });
    const pod = (dnsPolicy?: "None"): Pod => makePod({ spec: { dnsPolicy, dnsConfig: { nameservers: ["9.9.9.9"], options: [{ name: "ndots", value: "3" }] } } });
    expect(podDnsConfig(pod(), node)).toEqual({
      servers: ["1.1.1.1", "8.8.8.8", "9.9.9.9"],
      searches: ["a.example", "b.example"],
      options: ["ndots:3", "rotate"],
    });
    expect(podDnsConfig(pod("None"), node)).toEqual({ servers: ["9.9.9.9"], searches: [], options: ["ndots:3"] });
  });
});

describe("logs", () => {
  test("legacy symlink names are <pod>_<ns>_<container>-<id>.log, cut to 255 characters", () => {
    expect(legacyLogSymlink("/var/log/containers", "p", "ns", "c", "abc")).toBe("/var/log/containers/p_ns_c-abc.log");
    const long = legacyLogSymlink("/d", "p".repeat(300), "ns", "c", "id");
    expect(long.slice(3).length).toBe(255);
    expect(long).toEndWith(".log");
  });

  test("a missing log dir gives restart count 0", () => {
    expect(restartCountFromLogDir("/nonexistent/dir")).toBe(0);
  });
});
