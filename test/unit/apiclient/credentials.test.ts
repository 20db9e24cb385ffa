import { describe, expect, test } from "bun:test";
import { createCredentials, CredentialError, type ExecRunner } from "../../../src/apiclient/credentials.ts";
import type { ApiClientConfig } from "../../../src/apiclient/index.ts";
import { FakeClock } from "../../../src/lib/testing.ts";

const base: ApiClientConfig = {
  server: "https://10.0.0.1:6443",
  insecureSkipTLSVerify: false,
  credentials: { kind: "none" },
  source: { file: "/k", context: "c", cluster: "c", user: "u" },
};

describe("request credentials", () => {
  test("a token file is re-read about every minute (client-go's cached file token source)", async () => {
    const clock = new FakeClock();
    let token = "one";
    let reads = 0;
    const c = createCredentials({ ...base, credentials: { kind: "tokenFile", path: "/t" } }, { clock, readText: async () => (reads++, `${token}\n`) });
    expect(await c.authorization()).toBe("Bearer one");
    token = "two";
    await clock.advance(30_000);
    expect(await c.authorization()).toBe("Bearer one");
    await clock.advance(30_000);
    expect(await c.authorization()).toBe("Bearer two");
    expect(reads).toBe(2);
  });

  test("a 401 drops the cached token file so the next request reads it again", async () => {
    const clock = new FakeClock();
    let token = "old";
    const c = createCredentials({ ...base, credentials: { kind: "tokenFile", path: "/t" } }, { clock, readText: async () => token });
    expect(await c.authorization()).toBe("Bearer old");
    token = "new";
    expect(c.invalidate()).toBe(true);
    expect(await c.authorization()).toBe("Bearer new");
  });

  test("a static token cannot be refreshed: invalidate says so (no retry)", () => {
    const c = createCredentials({ ...base, credentials: { kind: "token", token: "t" } }, { clock: new FakeClock() });
    expect(c.invalidate()).toBe(false);
  });

  test("client certificate files are re-read after 5 minutes; the TLS object stays the same while they do not change", async () => {
    const clock = new FakeClock();
    const files: Record<string, string> = { "/cert": "C1", "/key": "K1", "/ca": "CA" };
    const c = createCredentials(
      { ...base, ca: { kind: "file", path: "/ca" }, clientCertificate: { kind: "file", path: "/cert" }, clientKey: { kind: "file", path: "/key" } },
      { clock, readText: async (p) => files[p]! },
    );
    const first = await c.tls();
    expect(first).toEqual({ ca: "CA", cert: "C1", key: "K1" });
    await clock.advance(5 * 60_000);
    expect(await c.tls()).toBe(first);
    files["/cert"] = "C2";
    files["/key"] = "K2";
    await clock.advance(60_000);
    expect(await c.tls()).toBe(first);
    await clock.advance(5 * 60_000);
    expect(await c.tls()).toEqual({ ca: "CA", cert: "C2", key: "K2" });
  });

  test("a missing certificate file is a CredentialError naming the file and the kubeconfig", async () => {
    const c = createCredentials({ ...base, ca: { kind: "file", path: "/nope/ca.crt" } }, {
      clock: new FakeClock(),
      readText: async () => {
        throw new Error("ENOENT: no such file or directory");
      },
    });
    await expect(c.tls()).rejects.toThrow(CredentialError);
    await expect(c.tls()).rejects.toThrow("/nope/ca.crt (from kubeconfig /k)");
  });

  describe("exec credential plugins", () => {
    const exec = { apiVersion: "client.authentication.k8s.io/v1", command: "/bin/creds", args: ["token"], env: [{ name: "EXTRA", value: "x" }], provideClusterInfo: true };
    const cfg: ApiClientConfig = { ...base, ca: { kind: "inline", pem: "PEM" }, credentials: { kind: "exec", exec } };
    const credential = (status: Record<string, unknown>) => JSON.stringify({ apiVersion: exec.apiVersion, kind: "ExecCredential", status });

    test("the plugin gets KUBERNETES_EXEC_INFO with the cluster, its env, and its token is cached until it expires", async () => {
      const clock = new FakeClock(Date.UTC(2026, 0, 1));
      const calls: { env: Record<string, string> }[] = [];
      let n = 0;
      const runner: ExecRunner = async (_cmd, _args, env) => {
        calls.push({ env });
        n++;
        return { code: 0, stderr: "", stdout: credential({ token: `t${n}`, expirationTimestamp: new Date(clock.now() + 60_000).toISOString() }) };
      };
      const c = createCredentials(cfg, { clock, exec: runner, env: { PATH: "/usr/bin" } });
      expect(await c.authorization()).toBe("Bearer t1");
      expect(await c.authorization()).toBe("Bearer t1");
      const info = JSON.parse(calls[0]!.env.KUBERNETES_EXEC_INFO!);
      expect(info).toEqual({
        apiVersion: "client.authentication.k8s.io/v1",
        kind: "ExecCredential",
        spec: { interactive: false, cluster: { server: "https://10.0.0.1:6443", "certificate-authority-data": Buffer.from("PEM").toString("base64") } },
      });
      expect(calls[0]!.env.EXTRA).toBe("x");
      expect(calls[0]!.env.PATH).toBe("/usr/bin");
      await clock.advance(61_000);
      expect(await c.authorization()).toBe("Bearer t2");
      expect(c.invalidate()).toBe(true);
      expect(await c.authorization()).toBe("Bearer t3");
    });

    test("a plugin may return a client certificate and key instead of a token", async () => {
      const runner: ExecRunner = async () => ({ code: 0, stderr: "", stdout: credential({ clientCertificateData: "CERT", clientKeyData: "KEY" }) });
      const c = createCredentials(cfg, { clock: new FakeClock(), exec: runner, env: {} });
      expect(await c.authorization()).toBeUndefined();
      expect(await c.tls()).toEqual({ ca: "PEM", cert: "CERT", key: "KEY" });
    });

    test("failures say which plugin and why", async () => {
      const outputs: [string, string][] = [
        ["exit", "exited 1: no credentials"],
        ["notjson", "did not print an ExecCredential as JSON"],
        ["wrongversion", "expected ExecCredential client.authentication.k8s.io/v1"],
        ["empty", "neither a token nor a client certificate and key"],
      ];
      for (const [kind, message] of outputs) {
        const runner: ExecRunner = async () => {
          if (kind === "exit") return { code: 1, stdout: "", stderr: "no credentials\n" };
          if (kind === "notjson") return { code: 0, stdout: "hello", stderr: "" };
          if (kind === "wrongversion") return { code: 0, stdout: JSON.stringify({ kind: "ExecCredential", apiVersion: "client.authentication.k8s.io/v1beta1", status: { token: "x" } }), stderr: "" };
          return { code: 0, stdout: credential({}), stderr: "" };
        };
        const c = createCredentials(cfg, { clock: new FakeClock(), exec: runner, env: {} });
        const err = await c.authorization().catch((e) => e);
        expect(err).toBeInstanceOf(CredentialError);
        expect(err.message).toContain("exec credential plugin /bin/creds (kubeconfig /k, user u)");
        expect(err.message).toContain(message);
      }
    });
  });
});
