// makeMounts' subPath and read-only rules (kubelet_pods.go makeMounts): subPathExpr expanded from
// the container's env, the node-side subPath checks with the kubelet's messages (an API pod is
// not validated by bunlet's decoder), missing subPath directories made with the volume root's
// mode, the runtime given the safe bind target, and configMap, secret, downwardAPI and projected
// volumes always read-only.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Container, Pod, Volume } from "../../../src/api/index.ts";
import { silentLogger } from "../../../src/lib/index.ts";
import { Reason, SyncError } from "../../../src/runtime/errors.ts";
import { checkSubPath, expandSubPathExpr, makeMounts } from "../../../src/runtime/volumes.ts";
import { SubPathError } from "../../../src/subpath/index.ts";
import { makePod } from "../../fixtures/pods.ts";

const podsDir = mkdtempSync(join(tmpdir(), "bunlet-subpath-mounts-"));
afterAll(() => rmSync(podsDir, { recursive: true, force: true }));

function pod(volumes: Volume[], container: Container): Pod {
  return makePod({ name: "p", namespace: "ns", metadata: { uid: "uid-1" }, spec: { volumes, containers: [container] } });
}

/** A Subpather that records what it is asked and answers a fixed target. */
function fakeSubpather(fail?: Error) {
  const made: { subdir: string; base: string; perm: number }[] = [];
  const prepared: unknown[] = [];
  return {
    made,
    prepared,
    safeMakeDir: (subdir: string, base: string, perm: number) => void made.push({ subdir, base, perm }),
    prepareSafeSubpath: async (sp: { volumeMountIndex: number }) => {
      if (fail) throw fail;
      prepared.push(sp);
      return `/safe/${sp.volumeMountIndex}`;
    },
    cleanSubPaths: async () => undefined,
  };
}

function input(subpather: ReturnType<typeof fakeSubpather>, envs: { name: string; value: string }[] = []) {
  return { podsDir, randomHex: () => "abcd", hosts: { podIPs: [], clusterDomain: "" }, envs, subpather, log: silentLogger };
}

async function configError(promise: Promise<unknown>): Promise<SyncError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof SyncError) return err;
    throw err;
  }
  throw new Error("expected a SyncError");
}

const hostDir = join(podsDir, "host");
mkdirSync(join(hostDir, "exists"), { recursive: true });

describe("subPath", () => {
  test("the runtime gets the safe bind target, and the subpather the kubelet's Subpath", async () => {
    const sp = fakeSubpather();
    const c: Container = { name: "app", volumeMounts: [{ name: "h", mountPath: "/x", subPath: "exists" }] };
    const mounts = await makeMounts(pod([{ name: "h", hostPath: { path: hostDir } }], c), c, input(sp));
    expect(mounts[0]).toMatchObject({ containerPath: "/x", hostPath: "/safe/0", readonly: false });
    expect(sp.prepared).toEqual([
      { volumeMountIndex: 0, path: join(hostDir, "exists"), volumeName: "h", volumePath: hostDir, podDir: join(podsDir, "uid-1"), containerName: "app" },
    ]);
    expect(sp.made).toEqual([]);
  });

  test("a missing subPath is created with the volume root's mode, setgid and sticky bits included", async () => {
    const root = join(podsDir, "root-3777");
    mkdirSync(root);
    chmodSync(root, 0o3777);
    const sp = fakeSubpather();
    const c: Container = { name: "app", volumeMounts: [{ name: "h", mountPath: "/x", subPath: "test-sub" }] };
    await makeMounts(pod([{ name: "h", hostPath: { path: root } }], c), c, input(sp));
    expect(sp.made).toEqual([{ subdir: "test-sub", base: root, perm: 0o3777 }]);
  });

  test("subPathExpr is expanded from the container's env", async () => {
    const sp = fakeSubpather();
    const c: Container = { name: "app", volumeMounts: [{ name: "h", mountPath: "/x", subPathExpr: "logs/$(POD_NAME)" }] };
    await makeMounts(pod([{ name: "h", hostPath: { path: hostDir } }], c), c, input(sp, [{ name: "POD_NAME", value: "web-1" }]));
    expect(sp.made).toEqual([{ subdir: "logs/web-1", base: hostDir, perm: expect.any(Number) }]);
    expect(sp.prepared).toMatchObject([{ path: join(hostDir, "logs", "web-1") }]);
  });

  const refused: [string, Partial<{ subPath: string; subPathExpr: string }>, { name: string; value: string }[], string][] = [
    ["an absolute subPath", { subPath: "/etc" }, [], "error SubPath `/etc` must not be an absolute path"],
    ["a subPath with ..", { subPath: "a/../../etc" }, [], "unable to provision SubPath `a/../../etc`: must not contain '..'"],
    ["a subPathExpr that expands to ..", { subPathExpr: "$(DIR)/x" }, [{ name: "DIR", value: ".." }], "unable to provision SubPath `../x`: must not contain '..'"],
    ["a subPathExpr that expands to an absolute path", { subPathExpr: "$(DIR)" }, [{ name: "DIR", value: "/etc" }], "error SubPath `/etc` must not be an absolute path"],
    ["a subPathExpr with unknown or empty variables", { subPathExpr: "$(B)/$(A)/$(E)" }, [{ name: "E", value: "" }], "missing value for A, B, E"],
  ];
  for (const [what, mount, envs, message] of refused) {
    test(`${what} fails the container with CreateContainerConfigError and mounts nothing`, async () => {
      const sp = fakeSubpather();
      const c: Container = { name: "app", volumeMounts: [{ name: "h", mountPath: "/x", ...mount }] };
      const err = await configError(makeMounts(pod([{ name: "h", hostPath: { path: hostDir } }], c), c, input(sp, envs)));
      expect(err.reason).toBe(Reason.CreateContainerConfigError);
      expect(err.message).toBe(message);
      expect(sp.made).toEqual([]);
      expect(sp.prepared).toEqual([]);
    });
  }

  test("a subPath that cannot be prepared safely: the kubelet's message, no detail about the host", async () => {
    const c: Container = { name: "app", volumeMounts: [{ name: "h", mountPath: "/x", subPath: "exists" }] };
    const err = await configError(makeMounts(pod([{ name: "h", hostPath: { path: hostDir } }], c), c, input(fakeSubpather(new SubPathError(`subpath "/etc" not within volume path "${hostDir}"`)))));
    expect(err.reason).toBe(Reason.CreateContainerConfigError);
    expect(err.message).toBe(`failed to prepare subPath for volumeMount "h" of container "app"`);
  });
});

describe("checkSubPath and expandSubPathExpr", () => {
  test.each(["a", "a/b", "a..b/c", "./a", "a/."])("%p passes", (p) => expect(() => checkSubPath(p)).not.toThrow());
  test.each(["..", "../a", "a/..", "/a"])("%p is refused", (p) => expect(() => checkSubPath(p)).toThrow(SyncError));
  test("$$ escapes and literal text stay as the kubelet's expansion leaves them", () => {
    expect(expandSubPathExpr("$$(X)/$(X)-$Y", [{ name: "X", value: "v" }])).toBe("$(X)/v-$Y");
  });
});

describe("read-only volumes", () => {
  const volumes: Volume[] = [
    { name: "cm", configMap: { name: "c" } },
    { name: "sec", secret: { secretName: "s" } },
    { name: "dw", downwardAPI: { items: [] } },
    { name: "proj", projected: { sources: [] } },
    { name: "empty", emptyDir: {} },
    { name: "host", hostPath: { path: hostDir } },
  ];
  test("configMap, secret, downwardAPI and projected are read-only whatever readOnly says; emptyDir and hostPath follow it", async () => {
    const c: Container = {
      name: "app",
      volumeMounts: [
        ...volumes.map((v) => ({ name: v.name, mountPath: `/${v.name}`, readOnly: false })),
        { name: "empty", mountPath: "/empty-ro", readOnly: true },
      ],
    };
    const mounts = await makeMounts(pod(volumes, c), c, input(fakeSubpather()));
    const ro = Object.fromEntries(mounts.filter((m) => m.containerPath !== "/dev/termination-log").map((m) => [m.containerPath, m.readonly]));
    expect(ro).toEqual({ "/cm": true, "/sec": true, "/dw": true, "/proj": true, "/empty": false, "/host": false, "/empty-ro": true });
  });
});
