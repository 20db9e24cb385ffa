/**
 * CVE-2024-10220: the kubelet's gitRepo volume ran `git clone` and `git checkout` on the host with
 * a repository, revision and directory the pod chose, and a repository holding a bare repository
 * with hooks got its hooks run as root on the node. bunlet has no gitRepo plugin: the volume's
 * SetUp fails with the kubelet's own message (GitRepoVolumeDriver is locked off since 1.36), the
 * pod gets no sandbox and no container, and no `git` is ever run. A `git` first on bunlet's PATH
 * records any run; a static pod file and a pod in the apiserver's shape (uid, nodeName, status,
 * from --manifest-url) are both tried.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "../../../src/api/index.ts";
import { labels } from "../../../src/cri/index.ts";
import { makePod, type PodOverrides } from "../../fixtures/pods.ts";
import { agentFixture, linePod } from "./bunlet.ts";

const BUSYBOX = "docker.io/library/busybox:1.36";
const DISABLED =
  "git-repo volume plugin has been disabled; if necessary, it may be re-enabled by enabling the feature-gate `GitRepoVolumeDriver`";

const fx = agentFixture({ name: "gitrepo", hostname: "e2e-node", waitTimeoutMs: 45_000 });
const { waitFor } = fx;

/** The gitRepo pod; extra is what the apiserver-shaped copy adds (uid, nodeName, status, ...). */
function gitRepoPod(name: string, repository: string, extra: Pick<PodOverrides, "metadata" | "spec" | "status"> = {}): Pod {
  return makePod({
    name,
    namespace: "default",
    metadata: extra.metadata,
    container: { name: "main", image: BUSYBOX, imagePullPolicy: "Never", command: ["sleep", "3600"], volumeMounts: [{ name: "repo", mountPath: "/repo" }] },
    spec: {
      terminationGracePeriodSeconds: 1,
      // The advisory's shape: a revision to check out inside a directory of the clone.
      volumes: [{ name: "repo", gitRepo: { repository, revision: "main", directory: "evil" } }],
      ...extra.spec,
    },
    status: extra.status,
  });
}

let server: ReturnType<typeof Bun.serve> | undefined;
afterAll(() => server?.stop(true));

describe("dist/bunlet refuses gitRepo volumes (CVE-2024-10220)", () => {
  test("a static pod file and an apiserver-shaped pod: FailedMount with the kubelet's message, nothing created, git never run", async () => {
    // Any git bunlet runs writes a marker; the repository holds a hook that would too.
    const bin = join(fx.dir, "bin");
    const ran = join(fx.dir, "git-ran");
    mkdirSync(bin);
    writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$@" >> ${ran}\n`);
    chmodSync(join(bin, "git"), 0o755);
    const repo = join(fx.dir, "evil.git");
    mkdirSync(join(repo, "evil", "hooks"), { recursive: true });
    writeFileSync(join(repo, "evil", "hooks", "post-checkout"), `#!/bin/sh\ntouch ${ran}\n`, { mode: 0o755 });

    writeFileSync(join(fx.manifests, "static.json"), JSON.stringify(gitRepoPod("gitrepo-static", `file://${repo}`)));
    const apiShaped = gitRepoPod("gitrepo-api", `file://${repo}`, {
      metadata: { uid: "0d5c3a51-0a43-4d4b-9b53-6c1d3c0f2b6e", resourceVersion: "42", creationTimestamp: "2026-01-01T00:00:00Z" },
      spec: { nodeName: "e2e-node" },
      status: { phase: "Pending", qosClass: "BestEffort" },
    });
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json(apiShaped) });

    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      await fx.start([`--manifest-url=http://127.0.0.1:${server.port}/pod`, "--http-check-frequency=1s", "--v=3"]);
    } finally {
      process.env.PATH = path;
    }

    for (const name of ["gitrepo-static", "gitrepo-api"]) {
      const ref = `default/${name}-e2e-node`;
      const event = await waitFor(`${name}: FailedMount`, () =>
        fx.bunlet!.lines.find((l) => l.msg === "Event occurred" && l.reason === "FailedMount" && l.object === ref),
      );
      expect(event.message).toBe(`MountVolume.SetUp failed for volume "repo" : ${DISABLED}`);
      const errorLine = fx.bunlet!.lines.find((l) => linePod(l, ref) && String(l.err ?? "").includes("unmounted volumes=[repo]"));
      expect(errorLine).toBeDefined();
    }
    // After the pod worker's retry (a second failed sync) nothing has been created, and git has never run.
    await waitFor("a retried sync of gitrepo-static", () =>
      fx.bunlet!.lines.filter((l) => linePod(l, "default/gitrepo-static-e2e-node") && String(l.err ?? "").includes("unmounted volumes=[repo]")).length >= 2,
    );
    const ofTest = (l: { [k: string]: string }) => l[labels.KubernetesPodNameLabel]?.startsWith("gitrepo-");
    expect((await fx.cri.runtime.listPodSandbox({})).items.filter((s) => ofTest(s.labels))).toEqual([]);
    expect((await fx.cri.runtime.listContainers({})).containers.filter((c) => ofTest(c.labels))).toEqual([]);
    expect(existsSync(ran)).toBe(false);
  }, 120_000);
});
