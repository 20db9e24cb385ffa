// The pod's user namespace in its CRI configs (NamespacesForPod, applyPlatformSpecificContainerConfig).
import { describe, expect, test } from "bun:test";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { NamespaceMode, type MountSchema } from "../../../src/cri/index.ts";
import { generatePodSandboxConfig } from "../../../src/runtime/sandbox-config.ts";
import { containerSecurityContext } from "../../../src/runtime/security.ts";
import { criUserNamespace, idmapMounts, noUserNamespaces, type PodUserNamespace } from "../../../src/runtime/userns.ts";
import { makePod } from "../../fixtures/pods.ts";

type MountInit = MessageInitShape<typeof MountSchema>;
const opts = { podLogsDir: "/var/log/pods", nodeDns: { servers: [], searches: [], options: [] }, clusterDns: { servers: [], domain: "cluster.local" } };
const range = { hostId: 196608, containerId: 0, length: 65536 };
const own: PodUserNamespace = { mode: "POD", uids: [range], gids: [range] };

describe("userns_options in the sandbox config", () => {
  const cases: { name: string; hostUsers?: boolean; answer?: PodUserNamespace; want: { mode: NamespaceMode; uids: (typeof range)[] } | string }[] = [
    { name: "the manager's own range: mode POD with its UID and GID mappings", hostUsers: false, answer: own, want: { mode: NamespaceMode.POD, uids: [range] } },
    { name: "the node's namespace: mode NODE, no mappings", answer: { mode: "NODE" }, want: { mode: NamespaceMode.NODE, uids: [] } },
    { name: "no manager, hostUsers unset: NODE", want: { mode: NamespaceMode.NODE, uids: [] } },
    { name: "no manager, hostUsers false: refused, never the node's mapping", hostUsers: false, want: "can't set `spec.hostUsers: false`, runtime does not support user namespaces" },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const pod = makePod({ spec: { hostUsers: c.hostUsers } });
      const build = () => generatePodSandboxConfig(pod, 0, { ...opts, userNamespace: c.answer && (() => c.answer!) });
      if (typeof c.want === "string") {
        expect(build).toThrow(c.want);
        return;
      }
      const userns = build().linux?.securityContext?.namespaceOptions?.usernsOptions;
      expect({ mode: userns?.mode, uids: userns?.uids.map((m) => ({ ...m, $typeName: undefined })) }).toEqual({
        mode: c.want.mode,
        uids: c.want.uids.map((m) => ({ ...m, $typeName: undefined })),
      });
      expect(userns?.gids.length).toBe(c.want.uids.length);
    });
  }

  test("the manager is asked with the pod (its handler is the wiring's to add)", () => {
    const asked: string[] = [];
    const pod = makePod({ spec: { hostUsers: false }, metadata: { uid: "u-1" } });
    generatePodSandboxConfig(pod, 0, { ...opts, userNamespace: (p) => (asked.push(p.metadata.uid ?? ""), own) });
    expect(asked).toEqual(["u-1"]);
  });
});

describe("containers of a pod with its own user namespace", () => {
  test("its security context carries the same userns_options", () => {
    const pod = makePod({ spec: { hostUsers: false } });
    const sc = containerSecurityContext(pod, pod.spec.containers[0]!, { username: "" }, "/s", criUserNamespace(own));
    expect(sc.namespaceOptions?.usernsOptions).toEqual({ mode: NamespaceMode.POD, uids: [range], gids: [range] });
  });

  test("every mount gets the UID and GID mappings (idmapped mounts); the node's namespace leaves mounts alone", () => {
    const mounts: MountInit[] = [
      { containerPath: "/data", hostPath: "/var/lib/bunlet/pods/u/volumes/kubernetes.io~empty-dir/data" },
      { containerPath: "/etc/hosts", hostPath: "/var/lib/bunlet/pods/u/etc-hosts" },
    ];
    const mapped = idmapMounts(mounts, criUserNamespace(own));
    expect(mapped.map((m) => [m.containerPath, m.uidMappings, m.gidMappings])).toEqual([
      ["/data", [range], [range]],
      ["/etc/hosts", [range], [range]],
    ]);
    expect(idmapMounts(mounts, criUserNamespace({ mode: "NODE" }))).toBe(mounts);
    expect(idmapMounts(mounts, undefined)).toBe(mounts);
  });

  test("the default source answers NODE for every pod but hostUsers: false", () => {
    expect(noUserNamespaces(makePod({ spec: { hostUsers: true } }), "")).toEqual({ mode: "NODE" });
    expect(() => noUserNamespaces(makePod({ spec: { hostUsers: false } }), "runc")).toThrow("runtime does not support user namespaces");
  });
});
