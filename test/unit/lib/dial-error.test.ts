import { describe, expect, test } from "bun:test";
import { goDialError, goHttpGetError } from "../../../src/lib/index.ts";

const errno = (code: string, message = `some runtime's own words for ${code}`) => Object.assign(new Error(message), { code });

describe("connection failures read as Go's", () => {
  test.each([
    ["unix", "/run/containerd/containerd.sock", "ECONNREFUSED", "dial unix /run/containerd/containerd.sock: connect: connection refused"],
    ["unix", "/run/containerd/containerd.sock", "ENOENT", "dial unix /run/containerd/containerd.sock: connect: no such file or directory"],
    ["unix", "/run/containerd/containerd.sock", "EACCES", "dial unix /run/containerd/containerd.sock: connect: permission denied"],
    ["tcp", "10.0.0.1:80", "ETIMEDOUT", "dial tcp 10.0.0.1:80: connect: connection timed out"],
  ] as const)("%s %s with %s", (network, address, code, want) => {
    expect(goDialError(network, address, errno(code))).toBe(want);
  });

  test("an error without a known errno has no dial wording", () => {
    expect(goDialError("unix", "/x.sock", new Error("boom"))).toBeUndefined();
    expect(goDialError("unix", "/x.sock", errno("EWHATEVER"))).toBeUndefined();
  });

  test.each([
    ["http://127.0.0.1:8080/pods", errno("ECONNREFUSED", "ECONNREFUSED: Unable to connect. Is the computer able to access the url?"), 'Get "http://127.0.0.1:8080/pods": dial tcp 127.0.0.1:8080: connect: connection refused'],
    ["http://10.0.0.1/pods", errno("ECONNREFUSED"), 'Get "http://10.0.0.1/pods": dial tcp 10.0.0.1:80: connect: connection refused'],
    ["https://10.0.0.1/pods", errno("ECONNREFUSED"), 'Get "https://10.0.0.1/pods": dial tcp 10.0.0.1:443: connect: connection refused'],
    ["http://nowhere.invalid/pods", errno("ENOTFOUND", "getaddrinfo ENOTFOUND nowhere.invalid"), 'Get "http://nowhere.invalid/pods": dial tcp: lookup nowhere.invalid: no such host'],
    ["http://10.0.0.1/pods", new Error("no answer within 5000 ms"), 'Get "http://10.0.0.1/pods": no answer within 5000 ms'],
  ])("GET %s", (url, err, want) => {
    expect(goHttpGetError(url, err)).toBe(want);
  });
});
