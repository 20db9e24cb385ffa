// A local plain-http registry (Debian's docker-registry) holding the busybox image, for pull tests.
import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUSYBOX_TAR, ensureImages, runCommand } from "./images.ts";
import { reapAbandoned, writeOwner } from "./reap.ts";
import { requireE2e } from "./require.ts";
import { waitFor } from "./wait.ts";

export interface TestRegistry {
  /** `127.0.0.1:PORT`; images are at `<host>/bunlet/busybox:1.36`. */
  host: string;
  /** The busybox image's reference in this registry. */
  busyboxImage: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForV2(host: string, proc: { exitCode: number | null }, logFile: string): Promise<void> {
  const outcome = await waitFor(
    `docker-registry to answer http://${host}/v2/`,
    async () => (proc.exitCode !== null ? "exited" : (await fetch(`http://${host}/v2/`)).ok && "ready"),
    { timeoutMs: 5_000, intervalMs: 50, detail: () => `see ${logFile}` },
  );
  if (outcome === "exited") throw new Error(`docker-registry exited with code ${proc.exitCode}; see ${logFile}`);
}

export async function startTestRegistry(): Promise<TestRegistry> {
  requireE2e(["docker-registry", "skopeo"]);
  await ensureImages();
  reapAbandoned();
  const dir = mkdtempSync(join(tmpdir(), "bunlet-registry-"));
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const config = join(dir, "config.yml");
  writeFileSync(
    config,
    [
      "version: 0.1",
      "log:",
      "  level: warn",
      "storage:",
      "  filesystem:",
      `    rootdirectory: ${join(dir, "data")}`,
      "http:",
      `  addr: ${host}`,
      "",
    ].join("\n"),
  );
  const logFile = join(dir, "registry.log");
  const logFd = openSync(logFile, "a");
  const proc = Bun.spawn(["docker-registry", "serve", config], { stdout: logFd, stderr: logFd });
  closeSync(logFd);
  writeOwner(dir, { ownerPid: process.pid, childPid: proc.pid });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    })());
  const busyboxImage = `${host}/bunlet/busybox:1.36`;
  try {
    await waitForV2(host, proc, logFile);
    await runCommand(["skopeo", "copy", "--quiet", "--dest-tls-verify=false", `docker-archive:${BUSYBOX_TAR}`, `docker://${busyboxImage}`]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { host, busyboxImage, stop };
}
