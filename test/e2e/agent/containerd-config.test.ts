/**
 * The embedded containerd's configuration as a user shapes it, on dist/bunlet with a real
 * containerd (1.6: config version 2; 2.x: version 3):
 * - `<root-dir>/containerd/config.toml.tmpl` with `{{ template "base" . }}` adds a runtime handler
 *   (what a RuntimeClass's `handler` names): a pod sandbox and its container run under it, and a
 *   handler the template does not add is refused by containerd;
 * - `--pod-infra-container-image` is the sandbox image: a name no registry serves, with no network,
 *   runs a static pod, because the bundled pause (`<root-dir>/images/pause.tar`) is tagged under it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PodList } from "../../../src/api/index.ts";
import { BUSYBOX_IMAGE, containerdPaths, PAUSE_IMAGE } from "../../../src/containerd/index.ts";
import { ContainerState, createCriClient, NamespaceMode, PodSandboxState, type CriClient } from "../../../src/cri/index.ts";
import { makePod } from "../../fixtures/pods.ts";
import { deleteLink, deleteNatRulesFor, killShims, unmountUnder } from "../../harness/cleanup.ts";
import { containerdBinary } from "../../harness/containerd-versions.ts";
import { BUSYBOX_TAR, ensureImages, PAUSE_TAR, runCommand } from "../../harness/images.ts";
import { allocateTestNetwork, type TestNetwork } from "../../harness/network.ts";
import { requireE2e } from "../../harness/require.ts";
import { bunletWaiter, ensureBuilt, freePort, startBunlet, type BunletProcess } from "./bunlet.ts";

const HANDLER = "e2e-sandboxed";
/** A sandbox image no registry serves: only the bundled pause, tagged under it, can run pods. */
const SANDBOX_IMAGE = "registry.invalid/bunlet-e2e/pause:3.10";

/** The handler's tables in the layout of each config version (1.x's CRI plugin; 2.x's runtime plugin). */
function template(version: "1.6" | "2"): string {
  const runtimes =
    version === "1.6" ? `plugins."io.containerd.grpc.v1.cri".containerd.runtimes` : `plugins."io.containerd.cri.v1.runtime".containerd.runtimes`;
  return [
    '{{ template "base" . }}',
    "# A user's handler, as for gVisor or Kata; runc here, under another name.",
    `[${runtimes}."${HANDLER}"]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `[${runtimes}."${HANDLER}".options]`,
    "  SystemdCgroup = false",
    "",
  ].join("\n");
}

describe.each(["1.6", "2"] as const)("the embedded containerd %s configured by the user", (version) => {
  const STEP_MS = 180_000;
  let dir = "";
  let rootDir = "";
  let manifests = "";
  let port = 0;
  let bunlet: BunletProcess | undefined;
  let cri: CriClient | undefined;
  let net: TestNetwork | undefined;
  let socket = "";
  const waitFor = bunletWaiter(() => bunlet, 90_000);

  beforeAll(async () => {
    requireE2e();
    await ensureImages();
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), `bunlet-ctdconf-${version}-`));
    rootDir = join(dir, "root");
    manifests = join(dir, "manifests");
    mkdirSync(manifests);
    // The bundled images, as a package installs them: preloaded from <root-dir>/images.
    mkdirSync(join(rootDir, "images"), { recursive: true });
    copyFileSync(PAUSE_TAR, join(rootDir, "images", "pause.tar"));
    copyFileSync(BUSYBOX_TAR, join(rootDir, "images", "busybox.tar"));
    mkdirSync(join(rootDir, "containerd"), { recursive: true });
    writeFileSync(join(rootDir, "containerd", "config.toml.tmpl"), template(version));
    port = await freePort();
    net = allocateTestNetwork();
    socket = containerdPaths(rootDir).socketPath;
    bunlet = await startBunlet(
      [
        `--root-dir=${rootDir}`,
        `--pod-manifest-path=${manifests}`,
        `--pod-logs-dir=${join(dir, "logs", "pods")}`,
        `--container-logs-dir=${join(dir, "logs", "containers")}`,
        "--hostname-override=ctdconf",
        `--pod-cidr=${net.podSubnet}`,
        `--cni-bridge-name=${net.bridgeName}`,
        `--containerd=${containerdBinary(version)}`,
        `--pod-infra-container-image=${SANDBOX_IMAGE}`,
        "--file-check-frequency=1s",
        `--healthz-port=${await freePort()}`,
      ],
      port,
    );
    await waitFor("containerd ready", () => bunlet!.lines.some((l) => l.msg === "containerd is ready"));
    cri = createCriClient({ endpoint: `unix://${socket}` });
  }, 180_000);

  afterAll(async () => {
    if (bunlet) {
      bunlet.signal("SIGTERM");
      await bunlet.exited;
    }
    cri?.close();
    if (rootDir) {
      killShims(containerdPaths(rootDir).socketPath);
      unmountUnder(dir);
    }
    if (net) {
      deleteLink(net.bridgeName);
      deleteNatRulesFor(net.podSubnet);
      net.release();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  test("the template's base is bunlet's config, with --pod-infra-container-image as the sandbox image", () => {
    const paths = containerdPaths(rootDir);
    const config = readFileSync(paths.configFile, "utf8");
    const base = readFileSync(paths.configBaseFile, "utf8");
    expect(config).toBe(template(version).replace('{{ template "base" . }}', base));
    const key = version === "1.6" ? "sandbox_image" : "sandbox";
    expect(base).toContain(`${key} = "${SANDBOX_IMAGE}"`);
    expect(bunlet!.lines.find((l) => l.msg === "containerd config from the user's template")).toMatchObject({ template: paths.configTemplateFile });
  });

  test("a static pod runs on the sandbox image --pod-infra-container-image names: the bundled pause, tagged under it", async () => {
    writeFileSync(
      join(manifests, "web.json"),
      JSON.stringify(
        makePod({ name: "web", namespace: "default", container: { name: "main", image: BUSYBOX_IMAGE, command: ["sleep", "3600"] }, spec: { terminationGracePeriodSeconds: 2 } }),
      ),
    );
    await waitFor("web Running", async () => {
      const list = (await (await fetch(`http://127.0.0.1:${port}/pods`)).json()) as PodList;
      return list.items.find((p) => p.metadata.name === "web-ctdconf")?.status?.phase === "Running";
    });
    expect(bunlet!.lines.find((l) => l.msg === "the bundled pause image stands in for the sandbox image")).toMatchObject({
      sandboxImage: SANDBOX_IMAGE,
      bundled: PAUSE_IMAGE,
    });
    const { items } = await cri!.runtime.listPodSandbox({ filter: { labelSelector: { "io.kubernetes.pod.name": "web-ctdconf" } } });
    expect(items).toHaveLength(1);
    // The sandbox's container is made from the image the config names.
    const info = JSON.parse(await runCommand(["ctr", "--address", socket, "-n", "k8s.io", "containers", "info", items[0]!.id])) as { Image: string };
    expect(info.Image).toBe(SANDBOX_IMAGE);
  }, STEP_MS);

  test("a pod under the template's runtime handler runs; a handler no config adds is refused", async () => {
    // Standalone, bunlet (as the kubelet) gives every pod the default handler, so the sandbox is
    // made here over the CRI. bunlet is paused meanwhile: its housekeeping would kill a sandbox no
    // pod of its own owns as an orphan, as the kubelet does (containerd logs to a file, not to
    // bunlet, so it runs on).
    process.kill(bunlet!.pid, "SIGSTOP");
    try {
      await runUnderHandler();
    } finally {
      process.kill(bunlet!.pid, "SIGCONT");
    }
    expect(existsSync(containerdPaths(rootDir).configBaseFile)).toBe(true);
  }, STEP_MS);

  async function runUnderHandler(): Promise<void> {
    const uid = `ctdconf-${version}-${Date.now()}`;
    const sandboxConfig = {
      metadata: { name: "sandboxed", namespace: "default", uid, attempt: 0 },
      hostname: "sandboxed",
      logDirectory: join(dir, "logs", uid),
      labels: { "io.kubernetes.pod.uid": uid },
      linux: { securityContext: { namespaceOptions: { network: NamespaceMode.POD, pid: NamespaceMode.CONTAINER, ipc: NamespaceMode.POD } } },
    };
    const { podSandboxId } = await cri!.runtime.runPodSandbox({ config: sandboxConfig, runtimeHandler: HANDLER });
    const status = await cri!.runtime.podSandboxStatus({ podSandboxId, verbose: true });
    expect(status.status?.state).toBe(PodSandboxState.SANDBOX_READY);
    // The CRI field (containerd 2.x); 1.6 reports it in its verbose info only.
    expect(status.status?.runtimeHandler || JSON.parse(status.info.info ?? "{}").runtimeHandler).toBe(HANDLER);
    const { containerId } = await cri!.runtime.createContainer({
      podSandboxId,
      sandboxConfig,
      config: { metadata: { name: "main", attempt: 0 }, image: { image: BUSYBOX_IMAGE }, command: ["sleep", "3600"], logPath: "main.log" },
    });
    await cri!.runtime.startContainer({ containerId });
    expect((await cri!.runtime.containerStatus({ containerId })).status?.state).toBe(ContainerState.CONTAINER_RUNNING);
    await cri!.runtime.stopPodSandbox({ podSandboxId });
    await cri!.runtime.removePodSandbox({ podSandboxId });

    const other = { ...sandboxConfig, metadata: { ...sandboxConfig.metadata, uid: `${uid}-x`, name: "unknown-handler" } };
    const refused = await cri!.runtime.runPodSandbox({ config: other, runtimeHandler: "not-in-the-template" }).then(
      () => "ran",
      (err: Error) => err.message,
    );
    expect(refused).toMatch(/no runtime for "not-in-the-template" is configured/);
  }
});
