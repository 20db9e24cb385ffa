/**
 * User namespaces (`spec.hostUsers: false`) on a runtime that makes them: containerd 2.x with runc
 * 1.3 (scripts/build-runc.sh; bookworm's runc 1.1.5 has no idmapped mounts, and containerd then
 * reports the handler without user_namespaces). Two static pods get disjoint 65536-ID ranges:
 * their /proc/self/uid_map is the range, never the node's `0 0 4294967295`; their processes run as
 * the range's first ID on the host; root in them reads a hostPath file through the idmapped mount
 * but cannot write one owned by a host user outside its range. The ranges are in the pods'
 * `userns` files, survive a bunlet restart (the pods are adopted, a new pod gets a third range),
 * and the started-pods metric counts them.
 */
import { expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUSYBOX_IMAGE } from "../../../src/containerd/index.ts";
import { labels } from "../../../src/cri/index.ts";
import { runcForUserNamespaces } from "../../harness/containerd-versions.ts";
import { makePod } from "../../fixtures/pods.ts";
import { agentFixture } from "./bunlet.ts";

const fx = agentFixture({ name: "userns", hostname: "e2e-node", waitTimeoutMs: 60_000, containerdVersion: "2", runcBinary: runcForUserNamespaces });

/**
 * A host owner the idmapped mount does not map: the mount maps on-disk IDs [0, 65536) onto the
 * pod's range, so a file of on-disk ID 4e9 shows as the overflow ID in the pod and its root has
 * no power over it.
 */
const FOREIGN_ID = 4_000_000_000;

function userNamespacedPod(name: string, hostDir: string) {
  return makePod({
    name,
    metadata: { namespace: undefined },
    container: {
      name: "main",
      image: BUSYBOX_IMAGE,
      command: [
        "sh",
        "-c",
        [
          'echo "uid_map: $(cat /proc/self/uid_map | tr -s " " | sed "s/^ //")"',
          'echo "id: $(id -u)"',
          'echo "read: $(cat /data/readable)"',
          'if echo x >> /data/foreign 2>/dev/null; then echo "foreign: written"; else echo "foreign: denied"; fi',
          "sleep 3600",
        ].join("; "),
      ],
      volumeMounts: [{ name: "data", mountPath: "/data" }],
    },
    spec: { hostUsers: false, terminationGracePeriodSeconds: 1, volumes: [{ name: "data", hostPath: { path: hostDir, type: "Directory" } }] },
  });
}

async function running(name: string) {
  return fx.waitFor(`${name} running with its checks logged`, async () => {
    const { containers } = await fx.cri.runtime.listContainers({ filter: { labelSelector: { [labels.KubernetesPodNameLabel]: `${name}-e2e-node` } } });
    const c = containers.find((x) => x.state === 1);
    if (!c) return undefined;
    const { status, info } = await fx.cri.runtime.containerStatus({ containerId: c.id, verbose: true });
    const log = status?.logPath && existsSync(status.logPath) ? readFileSync(status.logPath, "utf8") : "";
    if (!log.includes("foreign:")) return undefined;
    const line = (key: string) => log.split("\n").find((l) => l.includes(` ${key}: `))?.split(` ${key}: `)[1]?.trim();
    const pid = (JSON.parse(info.info ?? "{}") as { pid?: number }).pid ?? 0;
    return { id: c.id, uid: c.labels[labels.KubernetesPodUIDLabel]!, uidMap: line("uid_map")!, id0: line("id"), read: line("read"), foreign: line("foreign"), pid };
  });
}

/** The host UID a process runs as (/proc/<pid>/status, real UID). */
const hostUid = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${fx.port}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)`, "m").exec(text)?.[1] ?? "NaN");
}

test("hostUsers: false pods get their own disjoint ranges, isolated on the host, kept across a restart", async () => {
  const hostDir = join(fx.dir, "host-data");
  mkdirSync(hostDir);
  writeFileSync(join(hostDir, "readable"), "node-data\n", { mode: 0o600 });
  writeFileSync(join(hostDir, "foreign"), "not yours\n", { mode: 0o666 });
  chownSync(join(hostDir, "foreign"), FOREIGN_ID, FOREIGN_ID);

  // runc sets up the rootfs as the pod's host user: every directory above containerd's state
  // must be searchable by others (a system containerd's /run/containerd is 0711; mkdtemp's is 0700).
  chmodSync(fx.ctd.rootDir, 0o711);
  await fx.start(["--v=3"]);
  writeFileSync(join(fx.manifests, "a.json"), JSON.stringify(userNamespacedPod("userns-a", hostDir)));
  writeFileSync(join(fx.manifests, "b.json"), JSON.stringify(userNamespacedPod("userns-b", hostDir)));
  const a = await running("userns-a");
  const b = await running("userns-b");

  const range = (uidMap: string) => {
    const [inside, host, length] = uidMap.split(" ").map(Number);
    return { inside: inside!, host: host!, length: length! };
  };
  const ra = range(a.uidMap);
  const rb = range(b.uidMap);
  for (const r of [ra, rb]) {
    expect(r.inside).toBe(0);
    expect(r.length).toBe(65536);
    expect(r.host % 65536).toBe(0);
    expect(r.host).toBeGreaterThanOrEqual(65536);
  }
  expect(a.uidMap).not.toBe("0 0 4294967295");
  expect(ra.host + 65536 <= rb.host || rb.host + 65536 <= ra.host).toBe(true);
  // Root in the pod is its range's first ID on the host.
  expect(a.id0).toBe("0");
  expect(hostUid(a.pid)).toBe(ra.host);
  expect(hostUid(b.pid)).toBe(rb.host);
  // The idmapped hostPath mount: a host-root file (0600) reads as the pod root's; a file of a host
  // user outside the range is not the pod root's to write, whatever its mode.
  expect(a.read).toBe("node-data");
  expect(a.foreign).toBe("denied");
  expect(readFileSync(join(hostDir, "foreign"), "utf8")).toBe("not yours\n");

  // The kubelet's userns file in each pod directory holds the range.
  const file = (uid: string) => JSON.parse(readFileSync(join(fx.dir, "state", "pods", uid, "userns"), "utf8"));
  expect(file(a.uid)).toEqual({ uidMappings: [{ hostId: ra.host, containerId: 0, length: 65536 }], gidMappings: [{ hostId: ra.host, containerId: 0, length: 65536 }] });
  expect(await metric("kubelet_started_user_namespaced_pods_total")).toBe(2);
  expect(await metric("kubelet_started_user_namespaced_pods_errors_total")).toBe(0);

  // A restart: the pods are adopted with their ranges, and a new pod gets neither.
  fx.bunlet!.signal("SIGTERM");
  await fx.bunlet!.exited;
  await fx.start(["--v=3"]);
  writeFileSync(join(fx.manifests, "c.json"), JSON.stringify(userNamespacedPod("userns-c", hostDir)));
  const c = await running("userns-c");
  const rc = range(c.uidMap);
  for (const r of [ra, rb]) expect(rc.host + 65536 <= r.host || r.host + 65536 <= rc.host).toBe(true);
  const again = await running("userns-a");
  expect(again.id).toBe(a.id);
  expect(file(a.uid).uidMappings[0].hostId).toBe(ra.host);
  expect(file(b.uid).uidMappings[0].hostId).toBe(rb.host);
}, 240_000);
