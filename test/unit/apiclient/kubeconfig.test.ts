import { describe, expect, test } from "bun:test";
import { KubeconfigError, parseKubeconfig, type ApiClientConfig } from "../../../src/apiclient/kubeconfig.ts";

const CA = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
const CERT = "-----BEGIN CERTIFICATE-----\nNODE\n-----END CERTIFICATE-----\n";
const KEY = "-----BEGIN EC PRIVATE KEY-----\nKEY\n-----END EC PRIVATE KEY-----\n";
const b64 = (s: string) => Buffer.from(s).toString("base64");

function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: "https://10.0.0.1:6443", ...cluster } }],
    users: [{ name: "u", user }],
    contexts: [{ name: "ctx", context: { cluster: "c", user: "u" } }],
    "current-context": "ctx",
    ...extra,
  });
}

const parse = (text: string, path = "/etc/bunlet/kubeconfig") => parseKubeconfig(text, path);

describe("kubeconfig parsing", () => {
  const cases: { name: string; cluster?: Record<string, unknown>; user?: Record<string, unknown>; want: Partial<ApiClientConfig> }[] = [
    {
      name: "inline CA, client certificate and key (cluster.sh's node kubeconfig)",
      cluster: { "certificate-authority-data": b64(CA) },
      user: { "client-certificate-data": b64(CERT), "client-key-data": b64(KEY) },
      want: {
        ca: { kind: "inline", pem: CA },
        clientCertificate: { kind: "inline", pem: CERT },
        clientKey: { kind: "inline", pem: KEY },
        credentials: { kind: "none" },
      },
    },
    {
      name: "file paths, relative ones resolved against the kubeconfig's directory (kubeadm's kubelet.conf)",
      cluster: { "certificate-authority": "pki/ca.crt" },
      user: { "client-certificate": "/var/lib/kubelet/pki/kubelet-client-current.pem", "client-key": "/var/lib/kubelet/pki/kubelet-client-current.pem" },
      want: {
        ca: { kind: "file", path: "/etc/bunlet/pki/ca.crt" },
        clientCertificate: { kind: "file", path: "/var/lib/kubelet/pki/kubelet-client-current.pem" },
        clientKey: { kind: "file", path: "/var/lib/kubelet/pki/kubelet-client-current.pem" },
      },
    },
    { name: "a bearer token", user: { token: "abc" }, want: { credentials: { kind: "token", token: "abc" } } },
    { name: "an inline token wins over a token file (client-go)", user: { token: "abc", tokenFile: "t" }, want: { credentials: { kind: "token", token: "abc" } } },
    { name: "a token file, relative to the kubeconfig", user: { tokenFile: "token" }, want: { credentials: { kind: "tokenFile", path: "/etc/bunlet/token" } } },
    { name: "basic auth", user: { username: "a", password: "b" }, want: { credentials: { kind: "basic", username: "a", password: "b" } } },
    {
      name: "an exec plugin; a command with a slash is relative to the kubeconfig, a bare one is looked up on PATH",
      user: { exec: { apiVersion: "client.authentication.k8s.io/v1", command: "./bin/creds", args: ["get"], env: [{ name: "A", value: "1" }], provideClusterInfo: true } },
      want: {
        credentials: {
          kind: "exec",
          exec: { apiVersion: "client.authentication.k8s.io/v1", command: "/etc/bunlet/bin/creds", args: ["get"], env: [{ name: "A", value: "1" }], provideClusterInfo: true, installHint: undefined },
        },
      },
    },
    {
      name: "insecure-skip-tls-verify, tls-server-name and a trailing slash on the server",
      cluster: { server: "https://api.example:6443/", "insecure-skip-tls-verify": true, "tls-server-name": "kubernetes" },
      user: {},
      want: { server: "https://api.example:6443", insecureSkipTLSVerify: true, tlsServerName: "kubernetes" },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      expect(parse(kubeconfig(c.cluster ?? {}, c.user ?? {}))).toMatchObject(c.want);
    });
  }

  test("the current context picks the cluster and user; the source names them", () => {
    const text = JSON.stringify({
      clusters: [
        { name: "a", cluster: { server: "https://a:1" } },
        { name: "b", cluster: { server: "https://b:2" } },
      ],
      users: [{ name: "ub", user: { token: "tb" } }],
      contexts: [
        { name: "one", context: { cluster: "a", user: "ub" } },
        { name: "two", context: { cluster: "b", user: "ub" } },
      ],
      "current-context": "two",
    });
    const c = parse(text);
    expect(c.server).toBe("https://b:2");
    expect(c.source).toEqual({ file: "/etc/bunlet/kubeconfig", context: "two", cluster: "b", user: "ub" });
  });

  test("YAML as kubectl writes it", () => {
    const yaml = `apiVersion: v1
kind: Config
clusters:
- name: bunlet-local
  cluster:
    server: https://192.0.2.2:22025
    certificate-authority-data: ${b64(CA)}
users:
- name: system:node:n1
  user:
    client-certificate-data: ${b64(CERT)}
    client-key-data: ${b64(KEY)}
contexts:
- name: n1@bunlet-local
  context: {cluster: bunlet-local, user: "system:node:n1"}
current-context: n1@bunlet-local
`;
    const c = parse(yaml);
    expect(c.server).toBe("https://192.0.2.2:22025");
    expect(c.clientKey).toEqual({ kind: "inline", pem: KEY });
  });

  const errors: { name: string; text: string; field: string }[] = [
    { name: "no current-context", text: kubeconfig({}, {}, { "current-context": "" }), field: "current-context" },
    { name: "a current-context with no entry", text: kubeconfig({}, {}, { "current-context": "nope" }), field: "contexts" },
    { name: "no server", text: kubeconfig({ server: "" }, {}), field: "clusters[c].cluster.server" },
    { name: "a server that is not a URL", text: kubeconfig({ server: "10.0.0.1:6443" }, {}), field: "clusters[c].cluster.server" },
    {
      name: "both certificate-authority-data and certificate-authority",
      text: kubeconfig({ "certificate-authority-data": b64(CA), "certificate-authority": "/ca" }, {}),
      field: "clusters[c].cluster.certificate-authority-data",
    },
    { name: "a certificate without its key", text: kubeconfig({}, { "client-certificate-data": b64(CERT) }), field: "users[u].user.client-key" },
    { name: "inline data that is not base64 PEM", text: kubeconfig({ "certificate-authority-data": "bm90IHBlbQ==" }, {}), field: "clusters[c].cluster.certificate-authority-data" },
    { name: "a token and basic auth at once", text: kubeconfig({}, { token: "a", username: "b", password: "c" }), field: "users[u].user" },
    { name: "an auth-provider plugin", text: kubeconfig({}, { "auth-provider": { name: "gcp" } }), field: "users[u].user.auth-provider" },
    { name: "a proxy-url", text: kubeconfig({ "proxy-url": "http://proxy:3128" }, {}), field: "clusters[c].cluster.proxy-url" },
    {
      name: "an exec plugin of an unknown apiVersion",
      text: kubeconfig({}, { exec: { apiVersion: "client.authentication.k8s.io/v1alpha1", command: "x" } }),
      field: "users[u].user.exec.apiVersion",
    },
    { name: "not YAML", text: "clusters: [", field: "" },
  ];
  for (const e of errors) {
    test(`error: ${e.name} names the file and the field`, () => {
      let caught: unknown;
      try {
        parse(e.text);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(KubeconfigError);
      const err = caught as KubeconfigError;
      expect(err.file).toBe("/etc/bunlet/kubeconfig");
      expect(err.field).toBe(e.field);
      expect(err.message).toStartWith("kubeconfig /etc/bunlet/kubeconfig: ");
    });
  }
});
