import { describe, expect, test } from "bun:test";
import { defaultImagePullPolicy, ImageNameError, parseImageName, type ImageName } from "../../../src/api/index.ts";

const H = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// pkg/util/parsers TestParseImageName and more; every row (name or error) checked against
// distribution/reference v0.6.0 ParseNormalizedNamed as the kubelet links it (sha256, sha384, sha512).
describe("image references (ParseImageName)", () => {
  const table: [string, ImageName | string][] = [
    ["root", { repository: "docker.io/library/root", tag: "latest", digest: "" }],
    ["root:tag", { repository: "docker.io/library/root", tag: "tag", digest: "" }],
    [`root@sha256:${H}`, { repository: "docker.io/library/root", tag: "", digest: `sha256:${H}` }],
    ["user/repo", { repository: "docker.io/user/repo", tag: "latest", digest: "" }],
    ["user/repo:tag", { repository: "docker.io/user/repo", tag: "tag", digest: "" }],
    ["url:5000/repo", { repository: "url:5000/repo", tag: "latest", digest: "" }],
    [`url:5000/repo:latest@sha256:${H}`, { repository: "url:5000/repo", tag: "latest", digest: `sha256:${H}` }],
    ["ROOT", "invalid reference format: repository name (library/ROOT) must be lowercase"],
    ["http://root", "invalid reference format"],
    [`${H}`, `invalid repository name (${H}), cannot specify 64-byte hexadecimal strings`],
    ["busybox", { repository: "docker.io/library/busybox", tag: "latest", digest: "" }],
    ["busybox:1.36", { repository: "docker.io/library/busybox", tag: "1.36", digest: "" }],
    ["localhost:5000/x/busybox", { repository: "localhost:5000/x/busybox", tag: "latest", digest: "" }],
    ["localhost/busybox", { repository: "localhost/busybox", tag: "latest", digest: "" }],
    ["localhost", { repository: "docker.io/library/localhost", tag: "latest", digest: "" }],
    ["Bad Name", "invalid reference format: repository name (library/Bad Name) must be lowercase"],
    ["docker.io/busybox", { repository: "docker.io/library/busybox", tag: "latest", digest: "" }],
    ["index.docker.io/busybox", { repository: "docker.io/library/busybox", tag: "latest", digest: "" }],
    ["index.docker.io/library/busybox:latest", { repository: "docker.io/library/busybox", tag: "latest", digest: "" }],
    ["Docker.io/busybox", { repository: "Docker.io/busybox", tag: "latest", digest: "" }],
    ["MyRegistry/busybox", { repository: "MyRegistry/busybox", tag: "latest", digest: "" }],
    ["myregistry/busybox", { repository: "docker.io/myregistry/busybox", tag: "latest", digest: "" }],
    ["example.com/Foo", "invalid reference format: repository name (Foo) must be lowercase"],
    ["example.com/foo:Tag", { repository: "example.com/foo", tag: "Tag", digest: "" }],
    ["[::1]:5000/foo", { repository: "[::1]:5000/foo", tag: "latest", digest: "" }],
    ["[fe80::1%eth0]:5000/foo", "invalid reference format"],
    ["127.0.0.1:5000/a/b:v2", { repository: "127.0.0.1:5000/a/b", tag: "v2", digest: "" }],
    ["a@sha256:abc", "invalid reference format"],
    ["a@sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855", "invalid checksum digest format"],
    [`a@sha384:${H}`, "invalid checksum digest length"],
    [`a@sha512:${H}${H}`, { repository: "docker.io/library/a", tag: "", digest: `sha512:${H}${H}` }],
    [`a@md5:${H}`, "unsupported digest algorithm"],
    ["a__b", { repository: "docker.io/library/a__b", tag: "latest", digest: "" }],
    ["a___b", "invalid reference format"],
    ["a--b", { repository: "docker.io/library/a--b", tag: "latest", digest: "" }],
    ["a-", "invalid reference format"],
    ["-a", "invalid reference format"],
    ["a.b.c/d", { repository: "a.b.c/d", tag: "latest", digest: "" }],
    ["a:1:2", "invalid reference format"],
    ["foo:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", { repository: "docker.io/library/foo", tag: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", digest: "" }],
    ["foo:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "invalid reference format"],
    ["registry.k8s.io/pause:3.9", { repository: "registry.k8s.io/pause", tag: "3.9", digest: "" }],
    ["docker.io/bunlet/pause:3.9", { repository: "docker.io/bunlet/pause", tag: "3.9", digest: "" }],
    [`a/b/c/d:e@sha256:${H}`, { repository: "docker.io/a/b/c/d", tag: "e", digest: `sha256:${H}` }],
    [":tag", "invalid reference format"],
    [`@sha256:${H}`, "invalid reference format"],
    ["foo@", "invalid reference format"],
    ["foo:", "invalid reference format"],
  ];
  test.each(table)("%p is %p", (image, expected) => {
    if (typeof expected === "object") return expect(parseImageName(image)).toEqual(expected);
    expect(() => parseImageName(image)).toThrow(new ImageNameError(image, expected));
  });

  test("long names: a repository path of at most 255 characters, a tag of at most 128", () => {
    expect(parseImageName("a".repeat(247))?.repository).toBe(`docker.io/library/${"a".repeat(247)}`);
    expect(() => parseImageName("a".repeat(256))).toThrow("repository name must not be more than 255 characters");
    expect(parseImageName(`foo:${"x".repeat(128)}`)?.tag).toBe("x".repeat(128));
    expect(() => parseImageName(`foo:${"x".repeat(129)}`)).toThrow("invalid reference format");
  });
});

describe("the API's default pull policy (SetDefaults_Container)", () => {
  test.each([
    ["busybox", "Always"],
    ["busybox:latest", "Always"],
    ["busybox:1.36", "IfNotPresent"],
    [`busybox@sha256:${H}`, "IfNotPresent"],
    [`busybox:latest@sha256:${H}`, "Always"],
    ["Bad Name", "IfNotPresent"],
    ["", "IfNotPresent"],
  ])("%p pulls %s", (image, policy) => expect(defaultImagePullPolicy(image)).toBe(policy as never));
});
