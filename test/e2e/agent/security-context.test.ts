/**
 * dist/bunlet on a real containerd, replaying the kubelet's own security-context CVEs and the
 * conformance spec "Security Context: runAsNonRoot should not run without a specified user ID":
 * - CVE-2019-11245: a container of an image with a USER ran as root from its first restart on
 *   (kubelet 1.13.6/1.14.2). Here every attempt of a crash-looping container runs as the pod's
 *   runAsUser when it sets one, and as the image's USER when it does not.
 * - runAsNonRoot: busybox names no user, so it would run as root: CreateContainerConfigError
 *   with the kubelet's message and no container created; the same for an explicit runAsUser 0;
 *   an image with a numeric non-root USER starts.
 * - CVE-2023-2431: a Localhost seccomp profile with an empty name is CreateContainerConfigError,
 *   never an unconfined container.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Container, ContainerStatus, Pod, PodList } from "../../../src/api/index.ts";
import { labels } from "../../../src/cri/index.ts";
import { importBusyboxWithUser } from "../../harness/image-variants.ts";
import { makePod } from "../../fixtures/pods.ts";
import { agentFixture } from "./bunlet.ts";

const BUSYBOX = "docker.io/library/busybox:1.36";
/** busybox whose image config says `USER 1234`. */
const USER_IMAGE = "docker.io/bunlet/busybox-user:1.36";
const IMAGE_UID = "1234";
const STEP_MS = 120_000;

const fx = agentFixture({
  name: "security-context",
  hostname: "e2e-node",
  waitTimeoutMs: 45_000,
  startInBeforeAll: () => {},
});
const { waitFor } = fx;

function writePod(name: string, container: Omit<Container, "name">, securityContext?: Pod["spec"]["securityContext"]): void {
  const pod = makePod({ name, namespace: "default", container: { name: "main", imagePullPolicy: "Never", ...container }, spec: { terminationGracePeriodSeconds: 1, securityContext } });
  writeFileSync(join(fx.manifests, `${name}.json`), JSON.stringify(pod));
}

async function apiPod(name: string): Promise<Pod | undefined> {
  const list = (await (await fetch(`http://127.0.0.1:${fx.port}/pods`)).json()) as PodList;
  return list.items.find((i) => i.metadata.name === `${name}-e2e-node`);
}

async function mainStatus(name: string): Promise<ContainerStatus | undefined> {
  return (await apiPod(name))?.status?.containerStatuses?.find((c) => c.name === "main");
}

/** Waits for the kubelet's waiting reason and checks the runtime never got a container. */
async function expectConfigError(name: string, message: (pod: Pod) => string): Promise<void> {
  const waiting = await waitFor(`${name}: waiting CreateContainerConfigError`, async () => {
    const w = (await mainStatus(name))?.state?.waiting;
    return w?.reason === "CreateContainerConfigError" ? w : undefined;
  });
  const pod = (await apiPod(name))!;
  expect(waiting.message).toBe(message(pod));
  const created = (await fx.cri.runtime.listContainers({})).containers.filter((c) => c.labels[labels.KubernetesPodUIDLabel] === pod.metadata.uid);
  expect(created).toEqual([]);
}

/** The uid each attempt printed, read from its own log file (`<n>.log`), once `attempts` exist. */
async function uidsOfAttempts(name: string, attempts: number): Promise<string[]> {
  const pod = await waitFor(`${name}: ${attempts} attempts logged`, async () => {
    const p = await apiPod(name);
    const cs = p?.status?.containerStatuses?.[0];
    return cs && cs.restartCount >= attempts - 1 && !cs.state?.running ? p : undefined;
  });
  const dir = join(fx.dir, "logs", "pods", `default_${pod.metadata.name}_${pod.metadata.uid}`, "main");
  const uids: string[] = [];
  for (let attempt = 0; attempt < attempts; attempt++) {
    const file = join(dir, `${attempt}.log`);
    const line = await waitFor(`${file} written`, () => (existsSync(file) ? readFileSync(file, "utf8").trim() : undefined));
    // CRI log lines: `<time> stdout F <text>`.
    uids.push(line.split(" ").slice(3).join(" "));
  }
  return uids;
}

describe("dist/bunlet: the container's user (CVE-2019-11245, runAsNonRoot)", () => {
  test("CVE-2019-11245: a crash-looping container runs every attempt as the pod's runAsUser, over the image's USER", async () => {
    await importBusyboxWithUser(fx.ctd.socketPath, USER_IMAGE, IMAGE_UID);
    writePod("pod-user", { image: USER_IMAGE, command: ["sh", "-c", "id -u; exit 1"] }, { runAsUser: 2000 });
    expect(await uidsOfAttempts("pod-user", 2)).toEqual(["2000", "2000"]);
  }, STEP_MS);

  test("CVE-2019-11245: without runAsUser every attempt runs as the image's USER, never root", async () => {
    writePod("image-user", { image: USER_IMAGE, command: ["sh", "-c", "id -u; exit 1"] });
    expect(await uidsOfAttempts("image-user", 2)).toEqual([IMAGE_UID, IMAGE_UID]);
  }, STEP_MS);

  test("runAsNonRoot with an image that names no user (it runs as root): CreateContainerConfigError, nothing created", async () => {
    writePod("root-image", { image: BUSYBOX, command: ["sleep", "3600"], securityContext: { runAsNonRoot: true } });
    await expectConfigError(
      "root-image",
      (p) => `container has runAsNonRoot and image will run as root (pod: "${p.metadata.name}_default(${p.metadata.uid})", container: main)`,
    );
  }, STEP_MS);

  test("runAsNonRoot with an explicit runAsUser 0: CreateContainerConfigError, nothing created", async () => {
    writePod("explicit-root", { image: USER_IMAGE, command: ["sleep", "3600"], securityContext: { runAsNonRoot: true, runAsUser: 0 } });
    await expectConfigError(
      "explicit-root",
      (p) => `container's runAsUser breaks non-root policy (pod: "${p.metadata.name}_default(${p.metadata.uid})", container: main)`,
    );
  }, STEP_MS);

  test("runAsNonRoot with an image whose USER is a non-root uid: the container runs", async () => {
    writePod("nonroot-image", { image: USER_IMAGE, command: ["sleep", "3600"] }, { runAsNonRoot: true });
    await waitFor("nonroot-image running", async () => (await mainStatus("nonroot-image"))?.state?.running);
  }, STEP_MS);
});

describe("dist/bunlet: seccomp (CVE-2023-2431)", () => {
  test.each([
    ["container", { seccompProfile: { type: "Localhost", localhostProfile: "" } }, undefined],
    ["pod", undefined, { seccompProfile: { type: "Localhost", localhostProfile: "" } }],
  ] as const)("a %s-level Localhost profile with an empty name is CreateContainerConfigError, never unconfined", async (level, containerSc, podSc) => {
    const name = `seccomp-empty-${level}`;
    writePod(name, { image: BUSYBOX, command: ["sleep", "3600"], securityContext: containerSc }, podSc);
    await expectConfigError(name, () => "localhostProfile must be set if seccompProfile type is Localhost.");
  }, STEP_MS);
});
