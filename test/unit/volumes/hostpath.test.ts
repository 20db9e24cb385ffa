// hostPath SetUp as a table over a fake filesystem: which type accepts what, what is created, and
// the kubelet's messages. test/integration/volumes runs the same checks on real files.
import { describe, expect, test } from "bun:test";
import type { Stats } from "node:fs";
import type { Pod } from "../../../src/api/index.ts";
import { HostPathError, setUpHostPath, type HostPathFs } from "../../../src/volumes/hostpath.ts";
import { silentLogger } from "../../../src/lib/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";
import { createVolumeManager, mountedVolumeNames, VolumeSetUpError } from "../../../src/volumes/manager.ts";
import { makePod } from "../../fixtures/pods.ts";

/** The volume manager over a fake filesystem, for pods with hostPath volumes only. */
function setUpPodVolumes(p: Pod, fs: HostPathFs, events: string[] = []): Promise<void> {
  const node = { nodeName: "n", hostIPs: [], cpuCapacityMilli: 1000, memoryCapacity: 2 ** 30 };
  const recordEvent = (_p: Pod, type: string, reason: string, message: string) => void events.push(`${type} ${reason} ${message}`);
  return createVolumeManager({ podsDir: "/nonexistent", node, recordEvent, clock: new FakeClock(), log: silentLogger, hostPathFs: fs }).waitForAttachAndMount(p);
}

type Kind = "dir" | "file" | "socket" | "char" | "block" | "fifo";

function fakeStats(kind: Kind): Stats {
  return {
    isDirectory: () => kind === "dir",
    isFile: () => kind === "file",
    isSocket: () => kind === "socket",
    isCharacterDevice: () => kind === "char",
    isBlockDevice: () => kind === "block",
  } as Stats;
}

class FakeFs implements HostPathFs {
  readonly created: string[] = [];
  constructor(readonly entries: Record<string, Kind> = {}) {}
  stat(path: string) {
    const kind = this.entries[path];
    return kind === undefined ? undefined : fakeStats(kind);
  }
  mkdirAll(path: string) {
    this.created.push(`dir:${path}`);
    this.entries[path] = "dir";
  }
  createFile(path: string) {
    this.created.push(`file:${path}`);
    this.entries[path] = "file";
  }
}

const P = "/srv/x";

describe("setUpHostPath", () => {
  // [type, what is at the path, expected error (undefined = ok), what gets created]
  const cases: [string, Kind | undefined, string | undefined, string[]][] = [
    ["", undefined, undefined, []],
    ["", "fifo", undefined, []],
    ["DirectoryOrCreate", undefined, undefined, [`dir:${P}`]],
    ["DirectoryOrCreate", "dir", undefined, []],
    ["DirectoryOrCreate", "file", `hostPath type check failed: ${P} is not a directory, it's a File`, []],
    ["Directory", "dir", undefined, []],
    ["Directory", undefined, `hostPath type check failed: ${P} is not a directory`, []],
    ["Directory", "socket", `hostPath type check failed: ${P} is not a directory, it's a Socket`, []],
    ["FileOrCreate", undefined, undefined, [`file:${P}`]],
    ["FileOrCreate", "file", undefined, []],
    ["FileOrCreate", "dir", `hostPath type check failed: ${P} is not a file, it's a Directory`, []],
    ["File", "file", undefined, []],
    ["File", undefined, `hostPath type check failed: ${P} is not a file`, []],
    ["File", "dir", `hostPath type check failed: ${P} is not a file, it's a Directory`, []],
    ["File", "char", `hostPath type check failed: ${P} is not a file, it's a CharDevice`, []],
    ["Socket", "socket", undefined, []],
    ["Socket", undefined, `hostPath type check failed: ${P} is not a socket file`, []],
    ["Socket", "file", `hostPath type check failed: ${P} is not a socket file, it's a File`, []],
    ["CharDevice", "char", undefined, []],
    ["CharDevice", "block", `hostPath type check failed: ${P} is not a character device, it's a BlockDevice`, []],
    ["BlockDevice", "block", undefined, []],
    ["BlockDevice", undefined, `hostPath type check failed: ${P} is not a block device`, []],
    ["File", "fifo", `hostPath type check failed, ${P} is not a file, unable to determine its type: only recognise file, directory, socket, block device and character device`, []],
    ["Weird", "file", "Weird is an invalid volume type", []],
  ];
  for (const [type, kind, error, created] of cases) {
    test(`type ${JSON.stringify(type)} on ${kind ?? "nothing"}: ${error ?? "ok"}`, () => {
      const fs = new FakeFs(kind === undefined ? {} : { [P]: kind });
      let thrown: unknown;
      try {
        setUpHostPath(P, type, fs);
      } catch (err) {
        thrown = err;
      }
      if (error === undefined) expect(thrown).toBeUndefined();
      else {
        expect(thrown).toBeInstanceOf(HostPathError);
        expect((thrown as Error).message).toBe(error);
      }
      expect(fs.created).toEqual(created);
    });
  }

  test("a path that climbs with .. is refused whatever its type", () => {
    expect(() => setUpHostPath("/srv/../etc", "", new FakeFs())).toThrow("invalid HostPath `/srv/../etc`: must not contain '..'");
  });
});

function pod(volumes: Pod["spec"]["volumes"], mounts: string[], initMounts: string[] = []): Pod {
  return makePod({
    name: "p",
    namespace: "default",
    metadata: { uid: "u" },
    spec: {
      volumes,
      initContainers: initMounts.length ? [{ name: "init", image: "i", volumeMounts: initMounts.map((n) => ({ name: n, mountPath: `/${n}` })) }] : undefined,
      containers: [{ name: "c", image: "i", volumeMounts: mounts.map((n) => ({ name: n, mountPath: `/${n}` })) }],
    },
  });
}

describe("the volume manager's hostPath SetUp", () => {
  test("only volumes a container mounts are set up (init containers count)", async () => {
    const p = pod(
      [
        { name: "a", hostPath: { path: "/a", type: "DirectoryOrCreate" } },
        { name: "b", hostPath: { path: "/b", type: "DirectoryOrCreate" } },
        { name: "c", hostPath: { path: "/c", type: "DirectoryOrCreate" } },
      ],
      ["a"],
      ["c"],
    );
    expect(mountedVolumeNames(p)).toEqual(new Set(["a", "c"]));
    const fs = new FakeFs();
    await setUpPodVolumes(p, fs);
    expect(fs.created).toEqual(["dir:/a", "dir:/c"]);
  });

  test("every failing volume is named, in the kubelet's FailedMount wording, with one event each", async () => {
    const p = pod(
      [
        { name: "conf", hostPath: { path: "/etc/app.conf", type: "File" } },
        { name: "ok", hostPath: { path: "/data", type: "DirectoryOrCreate" } },
        { name: "sock", hostPath: { path: "/run/app.sock", type: "Socket" } },
      ],
      ["conf", "ok", "sock"],
    );
    const fs = new FakeFs();
    const events: string[] = [];
    const err = await setUpPodVolumes(p, fs, events).catch((e: unknown) => e);
    expect(events).toEqual([
      'Warning FailedMount MountVolume.SetUp failed for volume "conf" : hostPath type check failed: /etc/app.conf is not a file',
      'Warning FailedMount MountVolume.SetUp failed for volume "sock" : hostPath type check failed: /run/app.sock is not a socket file',
    ]);
    expect(err).toBeInstanceOf(VolumeSetUpError);
    expect((err as VolumeSetUpError).failures.map((f) => f.volume)).toEqual(["conf", "sock"]);
    expect((err as Error).message).toBe(
      'unmounted volumes=[conf sock]: MountVolume.SetUp failed for volume "conf" : hostPath type check failed: /etc/app.conf is not a file; ' +
        'MountVolume.SetUp failed for volume "sock" : hostPath type check failed: /run/app.sock is not a socket file',
    );
  });
});
