// A local plain-http registry (Debian's docker-registry) holding the busybox image, for pull tests;
// with `auth`, it asks every client for that user and password (htpasswd, bcrypt), as a private
// registry does.
import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUSYBOX_TAR, ensureImages, runCommand } from "./images.ts";
import { freePort } from "./ports.ts";
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

export interface TestRegistryOptions {
  /** Basic auth for every request (pushes and pulls alike). */
  auth?: { username: string; password: string };
}

async function waitForV2(host: string, proc: { exitCode: number | null }, logFile: string, auth: boolean): Promise<void> {
  // An authenticating registry answers /v2/ with 401 once it serves.
  const serving = (status: number) => status === 200 || (auth && status === 401);
  const outcome = await waitFor(
    `docker-registry to answer http://${host}/v2/`,
    async () => (proc.exitCode !== null ? "exited" : serving((await fetch(`http://${host}/v2/`)).status) && "ready"),
    { timeoutMs: 5_000, intervalMs: 50, detail: () => `see ${logFile}` },
  );
  if (outcome === "exited") throw new Error(`docker-registry exited with code ${proc.exitCode}; see ${logFile}`);
}

export async function startTestRegistry(opts: TestRegistryOptions = {}): Promise<TestRegistry> {
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
      ...(opts.auth ? ["auth:", "  htpasswd:", "    realm: bunlet-test", `    path: ${join(dir, "htpasswd")}`] : []),
      "",
    ].join("\n"),
  );
  if (opts.auth) writeFileSync(join(dir, "htpasswd"), `${opts.auth.username}:${await Bun.password.hash(opts.auth.password, { algorithm: "bcrypt", cost: 4 })}\n`);
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
    await waitForV2(host, proc, logFile, opts.auth !== undefined);
    const creds = opts.auth ? ["--dest-creds", `${opts.auth.username}:${opts.auth.password}`] : [];
    await runCommand(["skopeo", "copy", "--quiet", "--dest-tls-verify=false", ...creds, `docker-archive:${BUSYBOX_TAR}`, `docker://${busyboxImage}`]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { host, busyboxImage, stop };
}
