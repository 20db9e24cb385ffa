/**
 * What goes with every request: the TLS material (CA, client certificate and key) and the
 * Authorization header. Files are re-read now and then, as client-go does (client certificate
 * files every 5 minutes, for a kubelet whose certificate rotates; token files every minute), and
 * an exec plugin runs again when its credential expires or the apiserver answers 401.
 */
import { readFile } from "node:fs/promises";
import type { Clock } from "../lib/index.ts";
import type { ApiClientConfig, ExecConfig, PemSource } from "./kubeconfig.ts";

/** client-go's CertCallbackRefreshDuration. */
const CERT_FILE_REFRESH_MS = 5 * 60_000;
/** client-go's cachedFileTokenSource: a token file is good for a minute (less 10 s leeway). */
const TOKEN_FILE_REFRESH_MS = 50_000;

export interface TlsOptions {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized?: boolean;
  serverName?: string;
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

export type ExecRunner = (command: string, args: string[], env: Record<string, string>, signal?: AbortSignal) => Promise<ExecResult>;

const spawnExec: ExecRunner = async (command, args, env, signal) => {
  const proc = Bun.spawn([command, ...args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe", signal });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
};

export class CredentialError extends Error {
  override readonly name = "CredentialError";
}

export interface Credentials {
  /** The same object while nothing changed, so the connection pool is reused. */
  tls(signal?: AbortSignal): Promise<TlsOptions>;
  authorization(signal?: AbortSignal): Promise<string | undefined>;
  /** The apiserver answered 401: forget cached tokens and exec output. True if anything was dropped. */
  invalidate(): boolean;
}

interface ExecCredential {
  token?: string;
  cert?: string;
  key?: string;
  /** ms since epoch; undefined = until a 401 */
  expiresAt?: number;
}

export function createCredentials(
  config: ApiClientConfig,
  deps: { clock: Clock; exec?: ExecRunner; readText?: (path: string) => Promise<string>; env?: Record<string, string | undefined> },
): Credentials {
  const clock = deps.clock;
  const readText = deps.readText ?? ((p: string) => readFile(p, "utf8"));
  const runExec = deps.exec ?? spawnExec;
  const creds = config.credentials;

  const readPem = async (src: PemSource | undefined, what: string): Promise<string | undefined> => {
    if (!src) return undefined;
    if (src.kind === "inline") return src.pem;
    try {
      return await readText(src.path);
    } catch (err) {
      throw new CredentialError(`reading the ${what} ${src.path} (from kubeconfig ${config.source.file}): ${(err as Error).message}`);
    }
  };

  let tlsCache: { at: number; value: TlsOptions; key: string } | undefined;
  let tokenFileCache: { at: number; token: string } | undefined;
  let execCache: ExecCredential | undefined;
  let execRunning: Promise<ExecCredential> | undefined;

  const execCredential = async (signal?: AbortSignal): Promise<ExecCredential | undefined> => {
    if (creds.kind !== "exec") return undefined;
    if (execCache && (execCache.expiresAt === undefined || execCache.expiresAt > clock.now())) return execCache;
    execRunning ??= runPlugin(creds.exec, config, runExec, deps.env ?? process.env, signal).finally(() => (execRunning = undefined));
    execCache = await execRunning;
    return execCache;
  };

  return {
    async tls(signal) {
      const exec = await execCredential(signal);
      const fresh = tlsCache && clock.now() - tlsCache.at < CERT_FILE_REFRESH_MS;
      if (fresh && !exec) return tlsCache!.value;
      const value: TlsOptions = {
        ca: await readPem(config.ca, "certificate authority"),
        cert: exec?.cert ?? (await readPem(config.clientCertificate, "client certificate")),
        key: exec?.key ?? (await readPem(config.clientKey, "client key")),
      };
      if (config.insecureSkipTLSVerify) value.rejectUnauthorized = false;
      if (config.tlsServerName) value.serverName = config.tlsServerName;
      const key = JSON.stringify(value);
      if (tlsCache?.key !== key) tlsCache = { at: clock.now(), value, key };
      else tlsCache.at = clock.now();
      return tlsCache.value;
    },
    async authorization(signal) {
      switch (creds.kind) {
        case "none":
          return undefined;
        case "token":
          return `Bearer ${creds.token}`;
        case "basic":
          return `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString("base64")}`;
        case "tokenFile": {
          if (!tokenFileCache || clock.now() - tokenFileCache.at >= TOKEN_FILE_REFRESH_MS) {
            let token: string;
            try {
              token = (await readText(creds.path)).trim();
            } catch (err) {
              throw new CredentialError(`reading the token file ${creds.path} (from kubeconfig ${config.source.file}): ${(err as Error).message}`);
            }
            tokenFileCache = { at: clock.now(), token };
          }
          return `Bearer ${tokenFileCache.token}`;
        }
        case "exec": {
          const c = await execCredential(signal);
          return c?.token ? `Bearer ${c.token}` : undefined;
        }
      }
    },
    invalidate() {
      const had = tokenFileCache !== undefined || execCache !== undefined;
      tokenFileCache = undefined;
      execCache = undefined;
      return had && (creds.kind === "tokenFile" || creds.kind === "exec");
    },
  };
}

/** Runs the plugin the way client-go's exec authenticator does and reads its ExecCredential. */
async function runPlugin(
  exec: ExecConfig,
  config: ApiClientConfig,
  runExec: ExecRunner,
  baseEnv: Record<string, string | undefined>,
  signal?: AbortSignal,
): Promise<ExecCredential> {
  const spec: Record<string, unknown> = { interactive: false };
  if (exec.provideClusterInfo) {
    const cluster: Record<string, unknown> = { server: config.server };
    if (config.ca?.kind === "inline") cluster["certificate-authority-data"] = Buffer.from(config.ca.pem).toString("base64");
    if (config.insecureSkipTLSVerify) cluster["insecure-skip-tls-verify"] = true;
    if (config.tlsServerName) cluster["tls-server-name"] = config.tlsServerName;
    spec.cluster = cluster;
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(baseEnv)) if (v !== undefined) env[k] = v;
  for (const e of exec.env) env[e.name] = e.value;
  env.KUBERNETES_EXEC_INFO = JSON.stringify({ apiVersion: exec.apiVersion, kind: "ExecCredential", spec });
  const what = `exec credential plugin ${exec.command} (kubeconfig ${config.source.file}, user ${config.source.user})`;
  let r: ExecResult;
  try {
    r = await runExec(exec.command, exec.args, env, signal);
  } catch (err) {
    const hint = exec.installHint ? `; ${exec.installHint.trim()}` : "";
    throw new CredentialError(`${what} could not run: ${(err as Error).message}${hint}`);
  }
  if (r.code !== 0) throw new CredentialError(`${what} exited ${r.code}: ${r.stderr.trim().slice(0, 300)}`);
  let out: { apiVersion?: string; kind?: string; status?: Record<string, unknown> };
  try {
    out = JSON.parse(r.stdout);
  } catch {
    throw new CredentialError(`${what} did not print an ExecCredential as JSON`);
  }
  if (out.kind !== "ExecCredential" || out.apiVersion !== exec.apiVersion) {
    throw new CredentialError(`${what} printed ${out.kind ?? "?"} ${out.apiVersion ?? "?"}, expected ExecCredential ${exec.apiVersion}`);
  }
  const s = out.status ?? {};
  const token = typeof s.token === "string" && s.token ? s.token : undefined;
  const cert = typeof s.clientCertificateData === "string" && s.clientCertificateData ? s.clientCertificateData : undefined;
  const key = typeof s.clientKeyData === "string" && s.clientKeyData ? s.clientKeyData : undefined;
  if (!token && !(cert && key)) throw new CredentialError(`${what} returned neither a token nor a client certificate and key`);
  if ((cert === undefined) !== (key === undefined)) throw new CredentialError(`${what} returned a client certificate without its key, or a key without its certificate`);
  let expiresAt: number | undefined;
  if (typeof s.expirationTimestamp === "string") {
    expiresAt = Date.parse(s.expirationTimestamp);
    if (Number.isNaN(expiresAt)) throw new CredentialError(`${what}: expirationTimestamp ${JSON.stringify(s.expirationTimestamp)} is not an RFC 3339 time`);
  }
  return { token, cert, key, expiresAt };
}
