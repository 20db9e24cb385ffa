import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import * as http2 from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { GrpcCode } from "../../../src/cri/errors.ts";
import { RuntimeServiceCodec } from "../../../src/cri/gen/runtime/v1/api_codec.ts";
import { createH2Invoker, FrameReader, GrpcStatusError, grpcTimeout, MAX_MESSAGE_BYTES } from "../../../src/cri/invoker-h2.ts";

/** A gRPC length-prefixed message: flag byte, 4-byte big-endian length, the bytes. */
function framed(bytes: number[], flag = 0): Buffer {
  const out = Buffer.alloc(5 + bytes.length);
  out[0] = flag;
  out.writeUInt32BE(bytes.length, 1);
  Buffer.from(bytes).copy(out, 5);
  return out;
}
const messages = (got: Uint8Array[] | GrpcStatusError) => {
  if (got instanceof GrpcStatusError) throw got;
  return got.map((m) => [...m]);
};

describe("FrameReader: gRPC's length-prefixed messages out of HTTP/2 DATA", () => {
  test("one message in one chunk, two in one chunk, an empty one", () => {
    expect(messages(new FrameReader().push(framed([1, 2, 3])))).toEqual([[1, 2, 3]]);
    expect(messages(new FrameReader().push(Buffer.concat([framed([1]), framed([2, 2])])))).toEqual([[1], [2, 2]]);
    expect(messages(new FrameReader().push(framed([])))).toEqual([[]]);
  });

  test("a message split across chunks, the header itself split too, comes out whole once its last byte arrives", () => {
    const whole = Buffer.concat([framed([9, 8, 7, 6, 5]), framed([4])]);
    const reader = new FrameReader();
    expect(messages(reader.push(whole.subarray(0, 3)))).toEqual([]);
    expect(reader.partial).toBe(true);
    expect(messages(reader.push(whole.subarray(3, 8)))).toEqual([]);
    expect(messages(reader.push(whole.subarray(8, 11)))).toEqual([[9, 8, 7, 6, 5]]);
    expect(reader.partial).toBe(true);
    expect(messages(reader.push(whole.subarray(11)))).toEqual([[4]]);
    expect(reader.partial).toBe(false);
  });

  test("a compressed message is UNIMPLEMENTED, one above 16 MiB is RESOURCE_EXHAUSTED (grpc-js's limit in bunlet)", () => {
    expect(new FrameReader().push(framed([1], 1))).toMatchObject({ code: GrpcCode.UNIMPLEMENTED });
    const huge = Buffer.alloc(5);
    huge.writeUInt32BE(MAX_MESSAGE_BYTES + 1, 1);
    expect(new FrameReader().push(huge)).toMatchObject({ code: GrpcCode.RESOURCE_EXHAUSTED });
  });
});

test("grpc-timeout: milliseconds, rounded up, at least 1; seconds once the milliseconds need more than 8 digits", () => {
  expect(grpcTimeout(2000)).toBe("2000m");
  expect(grpcTimeout(0.2)).toBe("1m");
  expect(grpcTimeout(0)).toBe("1m");
  expect(grpcTimeout(99_999_999)).toBe("99999999m");
  expect(grpcTimeout(100_000_000)).toBe("100000S");
});

test("a field of the answer that bunlet's CRI proto does not declare is skipped, not kept as $unknown bytes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bunlet-h2-"));
  const socket = join(dir, "cri.sock");
  const answer = new BinaryWriter().tag(2, WireType.LengthDelimited).string("containerd").tag(99, WireType.LengthDelimited).string("a field bunlet does not know").finish();
  const server = http2.createServer();
  server.on("stream", (stream: http2.ServerHttp2Stream) => {
    stream.on("data", () => {});
    stream.on("end", () => {
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.end(framed([...answer]));
    });
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  const invoker = createH2Invoker(socket);
  try {
    const method = RuntimeServiceCodec.version;
    const got = await invoker.unary(method, method.create({}), undefined, 5_000);
    expect(got.runtimeName).toBe("containerd");
    expect("$unknown" in got).toBe(false);
  } finally {
    invoker.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
