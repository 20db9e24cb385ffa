import { describe, expect, test } from "bun:test";
import { ConnectError, Code } from "@connectrpc/connect";
import { CriError, GrpcCode, isNotFound, toCriError } from "../../../src/cri/index.ts";
import { isUnimplemented } from "../../../src/cri/errors.ts";
import { operationType } from "../../../src/cri/client.ts";
import { parseEndpoint } from "../../../src/cri/endpoint.ts";

describe("CRI error mapping", () => {
  const cases: { name: string; err: unknown; code: GrpcCode; deadline?: boolean }[] = [
    { name: "a connect NotFound keeps its code", err: new ConnectError("no such container", Code.NotFound), code: GrpcCode.NOT_FOUND },
    { name: "a connect Unimplemented keeps its code", err: new ConnectError("nope", Code.Unimplemented), code: GrpcCode.UNIMPLEMENTED },
    { name: "a grpc-js service error keeps its numeric code", err: Object.assign(new Error("5 NOT_FOUND: x"), { code: 5, details: "x" }), code: GrpcCode.NOT_FOUND },
    { name: "a socket errno becomes UNAVAILABLE", err: Object.assign(new Error("connect ENOENT /run/x.sock"), { code: "ENOENT" }), code: GrpcCode.UNAVAILABLE },
    { name: "a transport error wrapping a socket errno becomes UNAVAILABLE", err: new ConnectError("connect ENOENT", Code.Internal, undefined, undefined, Object.assign(new Error("x"), { code: "ENOENT" })), code: GrpcCode.UNAVAILABLE },
    { name: "an AbortError is CANCELLED", err: new DOMException("aborted", "AbortError"), code: GrpcCode.CANCELLED },
    { name: "a TimeoutError is DEADLINE_EXCEEDED", err: new DOMException("timed out", "TimeoutError"), code: GrpcCode.DEADLINE_EXCEEDED },
    { name: "a call that ran out its deadline is DEADLINE_EXCEEDED", err: new ConnectError("canceled", Code.Canceled), code: GrpcCode.DEADLINE_EXCEEDED, deadline: true },
    { name: "anything else is UNKNOWN", err: "boom", code: GrpcCode.UNKNOWN },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const e = toCriError("ContainerStatus", c.err, c.deadline ?? false);
      expect(e).toBeInstanceOf(CriError);
      expect(e.code).toBe(c.code);
      expect(e.method).toBe("ContainerStatus");
      expect(e.message).toStartWith(`CRI ContainerStatus failed: ${GrpcCode[c.code]}`);
    });
  }

  test("a CriError passes through unchanged", () => {
    const e = new CriError("Version", GrpcCode.UNAVAILABLE, "down");
    expect(toCriError("Status", e)).toBe(e);
  });

  test("predicates branch on the code, not the text", () => {
    expect(isNotFound(new CriError("X", GrpcCode.NOT_FOUND, "unimplemented"))).toBe(true);
    expect(isUnimplemented(new CriError("X", GrpcCode.NOT_FOUND, "unimplemented"))).toBe(false);
    expect(isNotFound(new Error("not found"))).toBe(false);
  });
});

describe("runtime endpoints", () => {
  test("unix:// URLs and bare absolute paths are accepted", () => {
    expect(parseEndpoint("unix:///run/containerd/containerd.sock")).toBe("/run/containerd/containerd.sock");
    expect(parseEndpoint("/run/k3s/containerd/containerd.sock")).toBe("/run/k3s/containerd/containerd.sock");
  });
  test("other forms are refused with the endpoint named", () => {
    expect(() => parseEndpoint("tcp://127.0.0.1:1234")).toThrow(/tcp:\/\/127\.0\.0\.1:1234/);
    expect(() => parseEndpoint("unix://relative.sock")).toThrow(/absolute/);
  });
});

describe("operation type labels", () => {
  test("CRI methods map to the kubelet's operation_type names", () => {
    expect(operationType("RunPodSandbox")).toBe("run_podsandbox");
    expect(operationType("PodSandboxStatus")).toBe("podsandbox_status");
    expect(operationType("ListPodSandbox")).toBe("list_podsandbox");
    expect(operationType("CreateContainer")).toBe("create_container");
    expect(operationType("ExecSync")).toBe("exec_sync");
    expect(operationType("GetContainerEvents")).toBe("get_container_events");
    expect(operationType("ImageFsInfo")).toBe("image_fs_info");
    expect(operationType("Version")).toBe("version");
  });
});
