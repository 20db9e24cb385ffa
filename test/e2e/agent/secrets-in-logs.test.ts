/**
 * CVE-2019-11250, CVE-2020-8565 (bearer tokens in client-go's request logs at --v>=7 and >=9),
 * CVE-2020-8564 (pull secrets in logs when a docker config was malformed) and CVE-2020-8566 (Ceph
 * admin secrets at --v>=4): the kubelet's credentials reached its logs at high verbosity. Here
 * dist/bunlet runs at --v=10 with every credential it is given on the command line, each unique:
 * a kubeconfig with a bearer token and a client key, pointed at a local HTTPS apiserver that
 * refuses every request (so each client path logs its failures), and a manifest URL with basic-auth
 * user info and an Authorization header (--manifest-url-header) whose server fails too. Every line
 * bunlet wrote, JSON or not, is searched for each secret. (bunlet sends no image pull secrets yet,
 * so none can be logged; see docs/security/cves.md.)
 */
import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentFixture } from "./bunlet.ts";

const fx = agentFixture({ name: "secrets-in-logs", hostname: "e2e-node", waitTimeoutMs: 45_000 });
const { waitFor } = fx;
const servers: ReturnType<typeof Bun.serve>[] = [];
afterAll(() => {
  for (const s of servers) s.stop(true);
});

const secret = (what: string) => `${what}-${randomBytes(12).toString("hex")}`;

function openssl(args: string[]): void {
  const run = Bun.spawnSync(["openssl", ...args], { stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`openssl ${args.join(" ")} failed: ${run.stderr.toString()}`);
}

/** A self-signed serving certificate for 127.0.0.1 and a client key and certificate. */
function makeCerts(dir: string) {
  const paths = { cert: join(dir, "server.crt"), key: join(dir, "server.key"), clientCert: join(dir, "client.crt"), clientKey: join(dir, "client.key") };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"];
  openssl(["req", "-x509", ...ec, "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", paths.key, "-out", paths.cert]);
  openssl(["req", "-x509", ...ec, "-subj", "/CN=system:node:e2e-node/O=system:nodes", "-keyout", paths.clientKey, "-out", paths.clientCert]);
  return paths;
}

describe("dist/bunlet --v=10 logs no credential (CVE-2019-11250, CVE-2020-8564/8565/8566)", () => {
  test("the kubeconfig's token and client key, the manifest URL's password and Authorization header appear in no log line", async () => {
    const certs = makeCerts(fx.dir);
    const token = secret("kubeconfig-token");
    const urlPassword = secret("manifest-url-password");
    const headerToken = secret("manifest-url-bearer");
    const b64 = (path: string) => readFileSync(path).toString("base64");
    const clientKeyData = b64(certs.clientKey);
    // The key's own base64 body lines (PEM), each long enough to be unmistakable.
    const keyLines = readFileSync(certs.clientKey, "utf8").split("\n").filter((l) => l.length >= 40 && !l.startsWith("-----"));

    const seen = { api: 0, manifest: 0, authorization: new Set<string>() };
    const refuse = (req: Request) => {
      seen.api++;
      seen.authorization.add(req.headers.get("authorization") ?? "");
      return Response.json({ kind: "Status", apiVersion: "v1", status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 }, { status: 401 });
    };
    const api = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert: Bun.file(certs.cert), key: Bun.file(certs.key) }, fetch: refuse });
    const manifests = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        seen.manifest++;
        seen.authorization.add(req.headers.get("authorization") ?? "");
        return new Response("no pods for you", { status: 500 });
      },
    });
    servers.push(api, manifests);

    const kubeconfig = join(fx.dir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "c", cluster: { server: `https://127.0.0.1:${api.port}`, "certificate-authority-data": b64(certs.cert) } }],
        users: [{ name: "u", user: { token, "client-certificate-data": b64(certs.clientCert), "client-key-data": clientKeyData } }],
        contexts: [{ name: "ctx", context: { cluster: "c", user: "u" } }],
        "current-context": "ctx",
      }),
    );
    const bunlet = await fx.start([
      "--v=10",
      `--kubeconfig=${kubeconfig}`,
      "--authorization-mode=AlwaysAllow",
      `--manifest-url=http://node:${urlPassword}@127.0.0.1:${manifests.port}/pods`,
      `--manifest-url-header=Authorization:Bearer ${headerToken}`,
      "--http-check-frequency=1s",
    ]);
    // Both servers were asked several times with the credentials (so every path that logs a
    // request or its failure has run), and bunlet logged at the highest verbosity.
    await waitFor("the apiserver and the manifest URL asked repeatedly", () => seen.api >= 5 && seen.manifest >= 3);
    expect(seen.authorization).toContain(`Bearer ${token}`);
    expect(seen.authorization).toContain(`Bearer ${headerToken}`);
    expect(bunlet.lines.some((l) => Number(l.v) >= 4)).toBe(true);
    bunlet.signal("SIGTERM");
    await bunlet.exited;

    const output = [...bunlet.lines.map((l) => JSON.stringify(l)), ...bunlet.raw].join("\n");
    const leaked = [token, urlPassword, headerToken, clientKeyData, ...keyLines].filter((s) => output.includes(s));
    expect(leaked).toEqual([]);
    // The URL is still named, its password masked as Go's url.Redacted does.
    expect(output).toContain(`http://node:xxxxx@127.0.0.1:${manifests.port}/pods`);
  }, 120_000);
});
