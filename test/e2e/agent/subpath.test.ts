/**
 * subPath safety (issue 23.1-23.3, CVE-2017-1002101, CVE-2021-25741) with dist/bunlet on a real
 * containerd, run as a hostile container would: a symlink an init container plants in an emptyDir
 * and a `..` subPath must not let the app container read a 0600 host file or create a file on the
 * host; legitimate subPath (file, directory, existing, missing) and subPathExpr still work through
 * `<pod dir>/volume-subpaths/...` bind mounts, which are gone once the pod is deleted; a missing
 * subPath of a tmpfs emptyDir with fsGroup gets the volume root's mode (the NodeConformance case);
 * a downwardAPI volume is read-only in the container whatever `readOnly` says.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Container, Pod, PodList, Volume } from "../../../src/api/index.ts";
import { labels } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { agentFixture } from "./bunlet.ts";

const STEP_MS = 180_000;
const BUSYBOX = "docker.io/library/busybox:1.36";
const NODE = "sp-node";
const fx = agentFixture({
  name: "subpath",
  hostname: NODE,
  waitTimeoutMs: 60_000,
  startInBeforeAll: (f) => {
    // The host's secret: a 0600 file in a directory no pod volume names.
    mkdirSync(join(f.dir, "host", "private"), { recursive: true });
    writeFileSync(join(f.dir, "host", "private", "secret"), "host-secret\n");
    chmodSync(join(f.dir, "host", "private", "secret"), 0o600);
    // What the legitimate pods share with the test, and where they report what they saw.
    mkdirSync(join(f.dir, "host", "shared", "dir"), { recursive: true });
    writeFileSync(join(f.dir, "host", "shared", "dir", "inner"), "in-dir\n");
    writeFileSync(join(f.dir, "host", "shared", "file"), "a-file\n");
    mkdirSync(join(f.dir, "host", "out"), { recursive: true });
  },
});
const { waitFor } = fx;
const host = (...parts: string[]) => join(fx.dir, "host", ...parts);

function staticPod(name: string, volumes: Volume[], containers: Container[], initContainers: Container[] = [], fsGroup?: number): Pod {
  return makePod({
    name,
    namespace: "default",
    spec: { terminationGracePeriodSeconds: 1, securityContext: fsGroup === undefined ? undefined : { fsGroup }, volumes, initContainers, containers },
  });
}

async function apiPod(name: string): Promise<Pod | undefined> {
  const list = (await (await fetch(`http://127.0.0.1:${fx.port}/pods`)).json()) as PodList;
  return list.items.find((p) => p.metadata.name === `${name}-${NODE}`);
}

async function containersNamed(pod: string, container: string) {
  const { containers } = await fx.cri.runtime.listContainers({});
  return containers.filter((c) => c.labels[labels.KubernetesPodNameLabel] === `${pod}-${NODE}` && c.labels[labels.KubernetesContainerNameLabel] === container);
}

/** Mount points under the bunlet's pods directory whose path has `volume-subpaths`. */
function subpathMounts(): string[] {
  const podsDir = join(fx.dir, "state", "pods");
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((l) => l.split(" ")[4] ?? "")
    .filter((p) => p.startsWith(podsDir + "/") && p.includes("/volume-subpaths/"));
}

const sh = (script: string) => ["sh", "-c", script];

describe("subPath attacks are refused", () => {
  test("a symlink planted by an init container: the app container fails with CreateContainerConfigError and reaches no host file", async () => {
    const pod = staticPod(
      "escape",
      [{ name: "scratch", emptyDir: {} }],
      [
        {
          name: "app",
          image: BUSYBOX,
          command: sh(`cat /leak/secret > /out/escape-read; touch /leak/created; sleep 3600`),
          volumeMounts: [
            { name: "scratch", mountPath: "/leak", subPath: "escape" },
            { name: "out", mountPath: "/out" },
          ],
        },
      ],
      [{ name: "plant", image: BUSYBOX, command: sh(`ln -s ${host("private")} /scratch/escape`), volumeMounts: [{ name: "scratch", mountPath: "/scratch" }] }],
    );
    pod.spec.volumes!.push({ name: "out", hostPath: { path: host("out"), type: "Directory" } });
    writeFileSync(join(fx.manifests, "escape.json"), JSON.stringify(pod));
    const waiting = await waitFor("app waiting in CreateContainerConfigError", async () => {
      const status = (await apiPod("escape"))?.status?.containerStatuses?.find((c) => c.name === "app");
      return status?.state?.waiting?.reason === "CreateContainerConfigError" ? status.state.waiting : undefined;
    });
    expect(waiting.message).toBe(`failed to prepare subPath for volumeMount "scratch" of container "app"`);
    expect(await containersNamed("escape", "app")).toEqual([]);
    expect(existsSync(host("private", "created"))).toBe(false);
    expect(existsSync(host("out", "escape-read"))).toBe(false);
    expect(subpathMounts().filter((p) => p.includes("/scratch/"))).toEqual([]);
    unlinkSync(join(fx.manifests, "escape.json"));
  }, STEP_MS);

  test("a subPath with `..` in a static pod is refused at validation and runs nothing", async () => {
    const up = "../".repeat(12) + host("private").slice(1);
    const pod = staticPod("dotdot", [{ name: "scratch", emptyDir: {} }], [
      {
        name: "app",
        image: BUSYBOX,
        command: sh(`cat /leak/secret > /leak/copied; sleep 3600`),
        volumeMounts: [{ name: "scratch", mountPath: "/leak", subPath: up }],
      },
    ]);
    const file = join(fx.manifests, "dotdot.json");
    writeFileSync(file, JSON.stringify(pod));
    const line = await waitFor("the validation error", () => fx.bunlet!.lines.find((l) => String(l.err ?? "").includes("volumeMounts.subPath")));
    expect(String(line.err)).toBe(`${file}: spec.containers[0].volumeMounts.subPath: Invalid value: ${JSON.stringify(up)}: must not contain '..'`);
    expect(await apiPod("dotdot")).toBeUndefined();
    expect(await containersNamed("dotdot", "app")).toEqual([]);
    expect(existsSync(host("private", "copied"))).toBe(false);
    unlinkSync(file);
  }, STEP_MS);
});

describe("legitimate subPaths", () => {
  let uid = "";

  test("file and directory subPaths, existing and missing, and subPathExpr from the downward env see the right content", async () => {
    const pod = staticPod(
      "legit",
      [
        { name: "shared", hostPath: { path: host("shared"), type: "Directory" } },
        { name: "out", hostPath: { path: host("out"), type: "Directory" } },
        { name: "mem", emptyDir: { medium: "Memory" } },
        { name: "info", downwardAPI: { items: [{ path: "name", fieldRef: { fieldPath: "metadata.name" } }] } },
      ],
      [
        {
          name: "app",
          image: BUSYBOX,
          env: [{ name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
          command: sh(
            [
              "cat /d/inner > /out/dir-read",
              "cat /f.txt > /out/file-read",
              "touch /m/made && echo ok > /out/missing",
              "touch /p/by-expr && echo ok > /out/expr",
              "stat -c '%A %u %g' /mem-sub > /out/mem-mode",
              "(touch /info/x 2>/dev/null && echo writable || echo read-only) > /out/info",
              "(touch /info-ro-false/x 2>/dev/null && echo writable || echo read-only) > /out/info-explicit",
              "sleep 3600",
            ].join("; "),
          ),
          volumeMounts: [
            { name: "shared", mountPath: "/d", subPath: "dir" },
            { name: "shared", mountPath: "/f.txt", subPath: "file" },
            { name: "shared", mountPath: "/m", subPath: "missing/deeper" },
            { name: "shared", mountPath: "/p", subPathExpr: "$(POD_NAME)" },
            { name: "out", mountPath: "/out" },
            { name: "mem", mountPath: "/mem-sub", subPath: "test-sub" },
            { name: "info", mountPath: "/info" },
            { name: "info", mountPath: "/info-ro-false", readOnly: false },
          ],
        },
      ],
      [],
      123,
    );
    writeFileSync(join(fx.manifests, "legit.json"), JSON.stringify(pod));
    const running = await waitFor("legit Running", async () => {
      const p = await apiPod("legit");
      return p?.status?.phase === "Running" ? p : undefined;
    });
    uid = running.metadata.uid ?? "";
    await waitFor("the container's report", () => existsSync(host("out", "info-explicit")) && readFileSync(host("out", "info-explicit"), "utf8") !== "");
    expect(readFileSync(host("out", "dir-read"), "utf8")).toBe("in-dir\n");
    expect(readFileSync(host("out", "file-read"), "utf8")).toBe("a-file\n");
    expect(readFileSync(host("out", "missing"), "utf8")).toBe("ok\n");
    expect(statSync(host("shared", "missing", "deeper", "made")).isFile()).toBe(true);
    expect(readFileSync(host("out", "expr"), "utf8")).toBe("ok\n");
    expect(statSync(host("shared", `legit-${NODE}`, "by-expr")).isFile()).toBe(true);
    // The tmpfs root is 1777, fsGroup adds setgid: the missing subPath gets exactly that mode.
    expect(readFileSync(host("out", "mem-mode"), "utf8")).toBe("drwxrwsrwt 0 123\n");
    expect(readFileSync(host("out", "info"), "utf8")).toBe("read-only\n");
    expect(readFileSync(host("out", "info-explicit"), "utf8")).toBe("read-only\n");
    // Every subPath went through a bind mount under the pod's volume-subpaths.
    const mounts = subpathMounts();
    expect(mounts.sort()).toEqual(
      [
        `${join(fx.dir, "state", "pods", uid, "volume-subpaths", "shared", "app")}/0`,
        `${join(fx.dir, "state", "pods", uid, "volume-subpaths", "shared", "app")}/1`,
        `${join(fx.dir, "state", "pods", uid, "volume-subpaths", "shared", "app")}/2`,
        `${join(fx.dir, "state", "pods", uid, "volume-subpaths", "shared", "app")}/3`,
        `${join(fx.dir, "state", "pods", uid, "volume-subpaths", "mem", "app")}/5`,
      ].sort(),
    );
  }, STEP_MS);

  test("the subPath bind mounts and the pod directory are gone after the pod is deleted; the volumes' data stays", async () => {
    unlinkSync(join(fx.manifests, "legit.json"));
    await waitFor("the pod directory removed", () => !existsSync(join(fx.dir, "state", "pods", uid)), 90_000);
    expect(subpathMounts()).toEqual([]);
    expect(readFileSync(host("shared", "dir", "inner"), "utf8")).toBe("in-dir\n");
    expect(statSync(host("shared", "missing", "deeper", "made")).isFile()).toBe(true);
  }, STEP_MS);
});
