/**
 * kubeconfig files (clientcmd v1 Config), read the way client-go reads the kubelet's
 * --kubeconfig: the current context's cluster and user; certificates and keys inline (`*-data`,
 * base64) or by path; a bearer token, a token file or basic auth; an exec credential plugin.
 * Relative paths are resolved against the file's directory, as clientcmd's ResolvePaths does.
 * Anything bunlet cannot honour (auth-provider plugins, proxy-url) is an error, not ignored.
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { readFileSync } from "node:fs";
import { parse } from "yaml";

export class KubeconfigError extends Error {
  override readonly name = "KubeconfigError";
  constructor(
    readonly file: string,
    /** The kubeconfig field at fault, e.g. `users[node].user.client-key`. */
    readonly field: string,
    problem: string,
  ) {
    super(`kubeconfig ${file}: ${field ? `${field}: ` : ""}${problem}`);
  }
}

export interface ExecConfig {
  apiVersion: string;
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  provideClusterInfo: boolean;
  installHint?: string;
}

export type CredentialSource =
  | { kind: "none" }
  | { kind: "token"; token: string }
  | { kind: "tokenFile"; path: string }
  | { kind: "basic"; username: string; password: string }
  | { kind: "exec"; exec: ExecConfig };

/** A file or inline PEM: files are re-read by the client (rotated kubelet certificates). */
export type PemSource = { kind: "inline"; pem: string } | { kind: "file"; path: string };

export interface ApiClientConfig {
  /** The apiserver's base URL without a trailing slash, e.g. https://10.0.0.1:6443 */
  server: string;
  ca?: PemSource;
  clientCertificate?: PemSource;
  clientKey?: PemSource;
  insecureSkipTLSVerify: boolean;
  tlsServerName?: string;
  credentials: CredentialSource;
  /** Where the config came from and which entries it used, for messages. */
  source: { file: string; context: string; cluster: string; user: string };
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

/** Reads and parses a kubeconfig file; throws KubeconfigError naming the file and field. */
export function loadKubeconfig(path: string, readFile: (p: string) => string = (p) => readFileSync(p, "utf8")): ApiClientConfig {
  let text: string;
  try {
    text = readFile(path);
  } catch (err) {
    throw new KubeconfigError(path, "", `cannot read the file: ${(err as Error).message}`);
  }
  return parseKubeconfig(text, path);
}

/** Parses kubeconfig text; `path` names the file in errors and anchors relative paths. */
export function parseKubeconfig(text: string, path: string): ApiClientConfig {
  const fail = (field: string, problem: string): never => {
    throw new KubeconfigError(path, field, problem);
  };
  let root: unknown;
  try {
    root = parse(text);
  } catch (err) {
    fail("", `not valid YAML: ${(err as Error).message.split("\n")[0]}`);
  }
  if (!isObj(root)) return fail("", "expected a kubeconfig object (kind: Config)");
  const dir = dirname(resolve(path));
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(dir, p));

  const contextName = str(root, "current-context", fail);
  if (!contextName) fail("current-context", "not set; bunlet needs the context to use");
  const named = (list: string, name: string, inner: string): Obj => {
    const entries = root[list as keyof typeof root];
    if (entries !== undefined && !Array.isArray(entries)) fail(list, "expected a list");
    const found = ((entries as unknown[]) ?? []).find((e) => isObj(e) && e.name === name);
    if (!isObj(found)) return fail(list, `no entry named ${JSON.stringify(name)}`);
    const value = found[inner];
    if (!isObj(value)) return fail(`${list}[${name}].${inner}`, "missing or not an object");
    return value;
  };
  const context = named("contexts", contextName, "context");
  const clusterName = str(context, "cluster", (f, p) => fail(`contexts[${contextName}].context.${f}`, p));
  const userName = str(context, "user", (f, p) => fail(`contexts[${contextName}].context.${f}`, p));
  if (!clusterName) fail(`contexts[${contextName}].context.cluster`, "not set");

  const cluster = named("clusters", clusterName, "cluster");
  const cf = (f: string) => `clusters[${clusterName}].cluster.${f}`;
  const cstr = (k: string) => str(cluster, k, (f, p) => fail(cf(f), p));
  const server = cstr("server").replace(/\/+$/, "");
  if (!server) fail(cf("server"), "not set");
  if (!/^https?:\/\/[^/]/.test(server)) fail(cf("server"), `expected an http(s) URL, found ${JSON.stringify(server)}`);
  if (cstr("proxy-url")) fail(cf("proxy-url"), "proxies are not supported by bunlet");
  const ca = pem(cluster, "certificate-authority", cf, fail, abs);

  let user: Obj = {};
  if (userName) user = named("users", userName, "user");
  const uf = (f: string) => `users[${userName}].user${f ? `.${f}` : ""}`;
  const ustr = (k: string) => str(user, k, (f, p) => fail(uf(f), p));
  if (user["auth-provider"] !== undefined) {
    fail(uf("auth-provider"), "auth-provider plugins are not supported (client-go removed them); use an exec credential plugin");
  }
  const clientCertificate = pem(user, "client-certificate", uf, fail, abs);
  const clientKey = pem(user, "client-key", uf, fail, abs);
  if ((clientCertificate === undefined) !== (clientKey === undefined)) {
    fail(uf(clientCertificate ? "client-key" : "client-certificate"), "a client certificate needs both the certificate and its key");
  }

  const token = ustr("token");
  const tokenFile = ustr("tokenFile");
  const username = ustr("username");
  const password = ustr("password");
  const methods = [token || tokenFile ? "token" : "", username || password ? "basicAuth" : "", user.exec !== undefined ? "exec" : ""].filter(Boolean);
  if (methods.length > 1) fail(uf(""), `more than one authentication method found (${methods.join(", ")}); only one is allowed`);
  let credentials: CredentialSource = { kind: "none" };
  // client-go: an inline token wins over the token file.
  if (token) credentials = { kind: "token", token };
  else if (tokenFile) credentials = { kind: "tokenFile", path: abs(tokenFile) };
  else if (username || password) credentials = { kind: "basic", username, password };
  else if (user.exec !== undefined) credentials = { kind: "exec", exec: execConfig(user.exec, uf, fail, dir) };

  return {
    server,
    ca,
    clientCertificate,
    clientKey,
    insecureSkipTLSVerify: cluster["insecure-skip-tls-verify"] === true,
    tlsServerName: cstr("tls-server-name") || undefined,
    credentials,
    source: { file: path, context: contextName, cluster: clusterName, user: userName },
  };
}

function str(o: Obj, key: string, fail: (field: string, problem: string) => never): string {
  const v = o[key];
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") fail(key, `expected a string, found ${JSON.stringify(v)}`);
  return v as string;
}

/** `<key>-data` (base64 PEM) or `<key>` (a path); both at once is client-go's validation error. */
function pem(
  o: Obj,
  key: string,
  field: (f: string) => string,
  fail: (field: string, problem: string) => never,
  abs: (p: string) => string,
): PemSource | undefined {
  const data = str(o, `${key}-data`, (f, p) => fail(field(f), p));
  const file = str(o, key, (f, p) => fail(field(f), p));
  if (data && file) fail(field(`${key}-data`), `both ${key}-data and ${key} are set; set one`);
  if (data) {
    const text = Buffer.from(data, "base64").toString("utf8");
    if (!text.includes("-----BEGIN")) fail(field(`${key}-data`), "not base64 of a PEM block");
    return { kind: "inline", pem: text };
  }
  return file ? { kind: "file", path: abs(file) } : undefined;
}

function execConfig(x: unknown, field: (f: string) => string, fail: (field: string, problem: string) => never, dir: string): ExecConfig {
  if (!isObj(x)) return fail(field("exec"), "expected an object");
  const f = (k: string) => field(`exec.${k}`);
  const s = (k: string) => str(x, k, (k2, p) => fail(f(k2), p));
  const apiVersion = s("apiVersion");
  if (apiVersion !== "client.authentication.k8s.io/v1" && apiVersion !== "client.authentication.k8s.io/v1beta1") {
    fail(f("apiVersion"), `expected client.authentication.k8s.io/v1 or v1beta1, found ${JSON.stringify(apiVersion)}`);
  }
  let command = s("command");
  if (!command) fail(f("command"), "not set");
  // clientcmd resolves a command with a path separator against the kubeconfig's directory.
  if (command.includes("/") && !isAbsolute(command)) command = resolve(dir, command);
  const args = x.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) fail(f("args"), "expected a list of strings");
  const env = x.env ?? [];
  if (!Array.isArray(env) || !env.every((e) => isObj(e) && typeof e.name === "string" && typeof e.value === "string")) {
    fail(f("env"), "expected a list of {name, value} strings");
  }
  return {
    apiVersion,
    command,
    args: args as string[],
    env: (env as { name: string; value: string }[]).map((e) => ({ name: e.name, value: e.value })),
    provideClusterInfo: x.provideClusterInfo === true,
    installHint: s("installHint") || undefined,
  };
}
