// The kubelet's sysctl allowlist (pkg/kubelet/sysctl allowlist_test.go, safe_sysctls_test.go): the
// same cases, plus the admit result's reason and message.
import { describe, expect, test } from "bun:test";
import type { Pod } from "../../../src/api/index.ts";
import { createSysctlAllowlist, safeSysctls, SysctlPatternError } from "../../../src/admission/index.ts";
import { makePod } from "../../fixtures/pods.ts";

const KERNEL = "6.1.0-18-amd64";

function pod(sysctls: string[], spec: Partial<Pod["spec"]> = {}): Pod {
  return makePod({
    name: "p",
    namespace: "default",
    metadata: { uid: "u" },
    spec: { containers: [{ name: "c", image: "busybox" }], securityContext: { sysctls: sysctls.map((name) => ({ name, value: "1" })) }, ...spec },
  });
}

describe("safe sysctls (SafeSysctlAllowlist)", () => {
  test.each([
    ["6.1.0-18-amd64", 14],
    ["4.15.0", 14],
    ["4.14.1", 11],
    ["4.5", 9],
    ["3.16.0", 6],
    ["3.15.9", 5],
    ["not-a-version", 5],
  ])("kernel %s namespaces %d of them", (release, count) => expect(safeSysctls(release)).toHaveLength(count));

  test("a sysctl namespaced from 4.15 is left out on 4.14", () => {
    expect(safeSysctls("4.14.1")).not.toContain("net.ipv4.tcp_rmem");
    expect(safeSysctls("4.14.1")).toContain("net.ipv4.tcp_notsent_lowat");
    expect(safeSysctls("5.10")).toContain("net.ipv4.tcp_rmem");
  });
});

describe("allowed unsafe sysctl patterns (NewAllowlist)", () => {
  test.each([
    [["kernel.msg*", "kernel.sem"], undefined],
    [["kernel/msg*", "kernel/sem"], undefined],
    [[" kernel.msg*"], "must have at most 253 characters and match regex"],
    [["kernel.msg* "], "must have at most 253 characters and match regex"],
    [["net.-"], "must have at most 253 characters and match regex"],
    [["net.*.foo"], "must have at most 253 characters and match regex"],
    [["net.*/foo"], "must have at most 253 characters and match regex"],
    [["foo"], 'the sysctls "foo" are not known to be namespaced'],
    [["foo*"], 'the sysctls "foo" are not known to be namespaced'],
    [[`net.${"a".repeat(250)}`], "must have at most 253 characters"],
  ] as [string[], string | undefined][])("%j: %s", (patterns, error) => {
    const make = () => createSysctlAllowlist([...safeSysctls(KERNEL), ...patterns]);
    if (error === undefined) expect(make).not.toThrow();
    else {
      expect(make).toThrow(SysctlPatternError);
      expect(make).toThrow(error);
    }
  });
});

describe("sysctl admission (patternAllowlist.Admit)", () => {
  const allowlist = createSysctlAllowlist([...safeSysctls(KERNEL), "kernel.msg*", "kernel.sem", "net.b.*", "user.*"]);
  const own = { hostUsers: false };

  test.each([
    ["kernel.shm_rmid_forced", own],
    ["kernel/shm_rmid_forced", own],
    ["net.ipv4.ip_local_port_range", own],
    ["kernel.msgmax", own],
    ["kernel.sem", own],
    ["kernel/sem", own],
    ["user.max_user_namespaces", own],
    // The default (hostUsers unset) is the host's user namespace: only user.* is concerned.
    ["net.ipv4.tcp_syncookies", {}],
  ] as [string, Partial<Pod["spec"]>][])("%s is admitted (%j)", (name, spec) => expect(allowlist.admit(pod([name], spec))).toEqual({ admit: true }));

  test.each([
    ["kernel.shm_rmid_forced", { hostIPC: true, ...own }, '"kernel.shm_rmid_forced" not allowed with host IPC enabled'],
    ["net.ipv4.ip_local_port_range", { hostNetwork: true, ...own }, '"net.ipv4.ip_local_port_range" not allowed with host Net enabled'],
    ["user.max_user_namespaces", { hostUsers: true }, '"user.max_user_namespaces" not allowed with host User enabled'],
    ["user.max_user_namespaces", {}, '"user.max_user_namespaces" not allowed with host User enabled'],
    ["foo", own, '"foo" not allowlisted'],
    ["net.a.b.c", own, '"net.a.b.c" not allowlisted'],
    ["net.ipv4.ip_local_port_range.a.b.c", own, '"net.ipv4.ip_local_port_range.a.b.c" not allowlisted'],
    ["kernel.msgmax", { hostIPC: true, ...own }, '"kernel.msgmax" not allowed with host IPC enabled'],
    ["kernel.sem", { hostIPC: true, ...own }, '"kernel.sem" not allowed with host IPC enabled'],
    ["net.b.c", { hostNetwork: true, ...own }, '"net.b.c" not allowed with host Net enabled'],
    ["net/b/c", { hostNetwork: true, ...own }, '"net.b.c" not allowed with host Net enabled'],
  ] as [string, Partial<Pod["spec"]>, string][])("%s is rejected (%j)", (name, spec, why) =>
    expect(allowlist.admit(pod([name], spec))).toEqual({ admit: false, reason: "SysctlForbidden", message: `forbidden sysctl: ${why}` }),
  );

  test("the NodeConformance spec's kernel.msgmax, not allowed on a default node, is SysctlForbidden", () => {
    const defaults = createSysctlAllowlist(safeSysctls(KERNEL));
    expect(defaults.admit(pod(["kernel.msgmax"]))).toEqual({ admit: false, reason: "SysctlForbidden", message: 'forbidden sysctl: "kernel.msgmax" not allowlisted' });
    expect(defaults.admit(pod(["kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range"]))).toEqual({ admit: true });
  });

  test("the first sysctl not allowed is the one named; no sysctls, or no security context, is admitted", () => {
    expect(allowlist.admit(pod(["net.ipv4.tcp_syncookies", "vm.swappiness", "foo"]))).toMatchObject({ message: 'forbidden sysctl: "vm.swappiness" not allowlisted' });
    expect(allowlist.admit(pod([]))).toEqual({ admit: true });
    expect(allowlist.admit({ ...pod([]), spec: { containers: [] } })).toEqual({ admit: true });
  });
});
