// The pull-secret keyring: pkg/credentialprovider keyring_test.go (TestURLsMatch,
// TestDockerKeyringForGlob, TestDockerKeyringLookup, TestIssue3797, TestIsDefaultRegistryMatch,
// the Docker Hub cases) and secrets_test.go, over Secrets as the apiserver returns them.
import { describe, expect, test } from "bun:test";
import type { Secret } from "../../../src/api/index.ts";
import { keyringFromSecrets, PullSecretError, urlsMatch } from "../../../src/runtime/keyring.ts";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const dockerConfigJson = (name: string, auths: Record<string, object>): Secret => ({
  metadata: { name, namespace: "ns" },
  type: "kubernetes.io/dockerconfigjson",
  data: { ".dockerconfigjson": b64(JSON.stringify({ auths })) },
});
const dockercfg = (name: string, cfg: Record<string, object>): Secret => ({ metadata: { name, namespace: "ns" }, type: "kubernetes.io/dockercfg", data: { ".dockercfg": b64(JSON.stringify(cfg)) } });
const user = (u: string) => ({ username: u, password: `${u}-pw` });
const auth = (u: string) => ({ auth: b64(`${u}:${u}-pw`) });

describe("URLsMatch", () => {
  test.each([
    ["*.kubernetes.io", "prefix.kubernetes.io", true],
    ["prefix.*.io", "prefix.kubernetes.io", true],
    ["prefix.kubernetes.*", "prefix.kubernetes.io", true],
    ["*-good.kubernetes.io", "prefix-good.kubernetes.io", true],
    ["*.kubernetes.io/blah", "prefix.kubernetes.io/blah", true],
    ["prefix.*.io/foo", "prefix.kubernetes.io/foo/bar", true],
    ["*.kubernetes.io:1111/blah", "prefix.kubernetes.io:1111/blah", true],
    ["prefix.*.io:1111/foo", "prefix.kubernetes.io:1111/foo/bar", true],
    ["*.kubernetes.io", "kubernetes.io", false],
    ["*.*.kubernetes.io", "prefix.kubernetes.io", false],
    ["*.*.kubernetes.io", "kubernetes.io", false],
    ["*kubernetes.io", "a.kubernetes.io", false],
    ["*kubernetes.io", "kubernetes.io", true],
    ["*.*.*.kubernetes.io", "a.b.c.kubernetes.io", true],
    ["kubernetes.io", "kubernetes.com", false],
    ["k*.io", "quay.io", false],
    ["*.kubernetes.io:1234/blah", "prefix.kubernetes.io:1111/blah", false],
    ["prefix.*.io/foo", "prefix.kubernetes.io:1111/foo/bar", false],
    ["reg[0-9].example.com", "reg7.example.com", true],
    ["reg[^0-9].example.com", "reg7.example.com", false],
    ["127.0.0.1:5000", "127.0.0.1:5000/e2e/busybox", true],
    ["127.0.0.1:5000", "127.0.0.1/e2e/busybox", false],
  ])("%s ~ %s: %p", (glob, target, want) => expect(urlsMatch(glob, target)).toBe(want));
});

describe("a keyring from the pod's pull secrets", () => {
  test.each([
    "https://hello.kubernetes.io|hello.kubernetes.io",
    "https://*.docker.io|prefix.docker.io",
    "https://prefix.*.io|prefix.docker.io",
    "https://prefix.docker.*|prefix.docker.io",
    "https://*.docker.io/path|prefix.docker.io/path",
    "https://prefix.*.io/path|prefix.docker.io/path/subpath",
    "https://*.docker.io:8888|prefix.docker.io:8888",
    "https://*.docker.io/path:1111|prefix.docker.io/path:1111",
    "https://*.docker.io/v1/|prefix.docker.io/path:1111",
    "https://*.docker.io/v2/|prefix.docker.io/path:1111",
    "prefix.docker.io:1111|prefix.docker.io:1111/path",
    "*.docker.io:1111|prefix.docker.io:1111/path",
  ])("a key %s (glob|image) matches the image's repository", (row) => {
    const [glob, target] = row.split("|") as [string, string];
    expect(keyringFromSecrets([dockerConfigJson("s", { [glob]: auth("alice") })]).lookup(`${target}/foo/bar`)).toEqual([user("alice")]);
  });

  const deep = keyringFromSecrets([dockerConfigJson("s", { "bar.example.com/pong": user("grace"), "bar.example.com": user("ada") })]);
  test.each([
    ["bar.example.com", ["ada"]],
    ["bar.example.com/pong", ["grace", "ada"]],
    ["bar.example.com/ping", ["ada"]],
    ["bar.example.com/pongz", ["grace", "ada"]],
    ["bar.example.com/pong/pang", ["grace", "ada"]],
    ["example.com", []],
    ["foo.example.com", []],
  ])("the most specific key first: %s → %j", (image, users) => expect(deep.lookup(image)).toEqual(users.map(user)));

  test("a scheme and /v1/ path in the key match by host (issue 3797)", () => {
    const k = keyringFromSecrets([dockercfg("s", { "https://quay.io/v1/": user("rex") })]);
    for (const image of ["quay.io", "quay.io/foo", "quay.io/foo/bar"]) expect(k.lookup(image)).toEqual([user("rex")]);
  });

  test("Docker Hub: index.docker.io's credentials serve docker.io images; another registry's image gets none", () => {
    const k = keyringFromSecrets([dockerConfigJson("s", { "https://index.docker.io/v1/": user("hub") })]);
    expect(k.lookup("docker.io/library/busybox")).toEqual([user("hub")]);
    expect(k.lookup("docker.io/team/app")).toEqual([user("hub")]);
    expect(k.lookup("busybox")).toEqual([user("hub")]);
    expect(k.lookup("quay.io/team/app")).toEqual([]);
    expect(k.lookup("localhost:5000/app")).toEqual([]);
  });

  test("secrets of both types add up in the pod's order; other secret types and empty data are skipped", () => {
    const k = keyringFromSecrets([
      dockercfg("old", { "registry.example.com": user("first") }),
      { metadata: { name: "opaque" }, type: "Opaque", data: { ".dockerconfigjson": b64(JSON.stringify({ auths: { "registry.example.com": user("no") } })) } },
      { metadata: { name: "empty" }, type: "kubernetes.io/dockerconfigjson", data: {} },
      dockerConfigJson("new", { "registry.example.com": auth("second") }),
    ]);
    expect(k.lookup("registry.example.com/app")).toEqual([user("first"), user("second")]);
    expect(keyringFromSecrets([]).lookup("registry.example.com/app")).toEqual([]);
  });

  test("auth wins over username/password; unpadded base64 is read; field names match without case, as Go's JSON", () => {
    const unpadded = b64("u:p1").replace(/=+$/, "");
    const k = keyringFromSecrets([dockerConfigJson("s", { "a.example": { username: "x", password: "y", auth: b64("u:p:with:colons") }, "b.example": { auth: unpadded }, "c.example": { Username: "U", Password: "P" } })]);
    expect(k.lookup("a.example/app")).toEqual([{ username: "u", password: "p:with:colons" }]);
    expect(k.lookup("b.example/app")).toEqual([{ username: "u", password: "p1" }]);
    expect(k.lookup("c.example/app")).toEqual([{ username: "U", password: "P" }]);
  });

  test("a malformed secret is an error that names it and never its credentials", () => {
    const bad = (s: Secret) => () => keyringFromSecrets([s]);
    expect(bad({ metadata: { name: "x", namespace: "ns" }, type: "kubernetes.io/dockerconfigjson", data: { ".dockerconfigjson": b64("{not json") } })).toThrow(
      new PullSecretError("secret ns/x: .dockerconfigjson is not valid JSON"),
    );
    const noColon = bad(dockerConfigJson("y", { "r.example": { auth: b64("secretpassword") } }));
    expect(noColon).toThrow("unable to parse auth field, must be formatted as base64(username:password)");
    try {
      noColon();
    } catch (err) {
      expect((err as Error).message).not.toContain("secretpassword");
    }
  });
});
