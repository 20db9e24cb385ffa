// The generated CRI codec (src/cri/gen/runtime/v1/api_codec.ts, scripts/generate-codec.ts)
// against @bufbuild/protobuf itself, for every method of both services: a request made by the
// codec's create is the library's `create`, encodes to the bytes of `toBinary`, and every answer
// decodes to what `fromBinary` makes of it (unknown fields skipped). The messages are filled from
// their descriptors: every field set, nested messages two levels deep, two items in each list and map.
import { describe, expect, test } from "bun:test";
import { create, fromBinary, ScalarType, toBinary, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { ImageServiceCodec, RuntimeServiceCodec, type CodecMethod } from "../../../src/cri/gen/runtime/v1/api_codec.ts";
import * as codec from "../../../src/cri/gen/runtime/v1/api_codec.ts";
import { file_runtime_v1_api, ImageService, RuntimeService } from "../../../src/cri/gen/runtime/v1/api_pb.ts";

const NO_UNKNOWN = { readUnknownFields: false } as const;

function scalarSample(t: ScalarType, seed: number): unknown {
  switch (t) {
    case ScalarType.STRING:
      return `s${seed}-é`;
    case ScalarType.BOOL:
      return true;
    case ScalarType.BYTES:
      return new Uint8Array([seed, 0, 255]);
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return seed + 0.5;
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return BigInt(-seed * 1_000_000_007);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return BigInt(seed) * 1_000_000_007n;
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return -seed;
    default:
      return seed;
  }
}

/** An init object with every field of `m` set (messages down to `depth`), as plain objects. */
function sample(m: DescMessage, depth: number, seed = 1): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [i, f] of m.fields.entries()) {
    const s = seed + i + 1;
    out[f.localName] = fieldSample(f, depth, s);
  }
  return out;
}

function fieldSample(f: DescField, depth: number, s: number): unknown {
  switch (f.fieldKind) {
    case "scalar":
      return scalarSample(f.scalar, s);
    case "enum":
      return f.enum.values.at(-1)!.number;
    case "message":
      return depth > 0 ? sample(f.message, depth - 1, s) : {};
    case "list":
      if (f.listKind === "message") return depth > 0 ? [sample(f.message, depth - 1, s), {}] : [];
      if (f.listKind === "enum") return [f.enum.values.at(-1)!.number, 0];
      return [scalarSample(f.scalar, s), scalarSample(f.scalar, s + 1)];
    case "map":
      return { [`k${s}`]: `v${s}`, "": "" };
  }
}

type AnyMethod = CodecMethod<unknown, unknown, unknown>;
const services = [
  [RuntimeService, RuntimeServiceCodec],
  [ImageService, ImageServiceCodec],
] as const;
const methods = services.flatMap(([service, table]) =>
  service.methods.map((desc) => ({ desc, codec: (table as unknown as Record<string, AnyMethod>)[desc.localName]! })),
);

describe("every method of the CRI services, against @bufbuild/protobuf", () => {
  test("the tables have every method with its gRPC path and kind", () => {
    expect(methods.length).toBe(RuntimeService.methods.length + ImageService.methods.length);
    for (const { desc, codec: c } of methods) {
      expect(c).toBeDefined();
      expect(c.path).toBe(`/${desc.parent.typeName}/${desc.name}`);
      expect(c.kind).toBe(desc.methodKind as "unary" | "server_streaming");
    }
  });

  test.each(methods.map((m) => [m.desc.name, m] as const))("%s: create and encode of the request", (_name, { desc, codec: c }) => {
    for (const init of [undefined, {}, sample(desc.input, 2)]) {
      const mine = c.create(init);
      const theirs = create(desc.input, init as never);
      expect(mine).toEqual(theirs as unknown);
      expect([...c.encode(mine)]).toEqual([...toBinary(desc.input, theirs)]);
    }
    // A message is taken as it is, as the library's create does.
    const made = create(desc.input, sample(desc.input, 1) as never);
    expect(c.create(made)).toBe(made as unknown);
  });

  test.each(methods.map((m) => [m.desc.name, m] as const))("%s: decode of the answer", (_name, { desc, codec: c }) => {
    for (const init of [{}, sample(desc.output, 2)]) {
      const bytes = toBinary(desc.output, create(desc.output, init as never));
      expect(c.decode(bytes)).toEqual(fromBinary(desc.output, bytes, NO_UNKNOWN) as unknown);
    }
  });
});

describe("the wire's other forms", () => {
  const version = RuntimeServiceCodec.version;

  test("a field the proto does not declare is skipped, whatever its wire type", () => {
    const w = new BinaryWriter().tag(99, WireType.LengthDelimited).string("unknown").tag(98, WireType.Varint).int64(5n).tag(2, WireType.LengthDelimited).string("containerd");
    w.tag(97, WireType.Bit64).fixed64(1n).tag(96, WireType.Bit32).fixed32(1);
    const bytes = w.finish();
    const got = version.decode(bytes);
    expect(got).toEqual(fromBinary(RuntimeService.method.version.output, bytes, NO_UNKNOWN));
    expect(got.runtimeName).toBe("containerd");
    expect("$unknown" in got).toBe(false);
  });

  test("a packed field written unpacked (each item its own record) decodes the same", () => {
    // ContainerStatusResponse.status.user.linux.supplemental_groups: repeated int64, packed in proto3.
    const method = RuntimeService.method.containerStatus;
    const path = ["status", "user", "linux"];
    let desc: DescMessage = method.output;
    const numbers: number[] = [];
    for (const name of path) {
      const f = desc.fields.find((x) => x.localName === name)!;
      numbers.push(f.number);
      desc = (f as DescField & { message: DescMessage }).message;
    }
    const groups = desc.fields.find((f) => f.localName === "supplementalGroups")!;
    expect((groups as DescField & { packed: boolean }).packed).toBe(true);
    const w = new BinaryWriter();
    for (const no of numbers) w.tag(no, WireType.LengthDelimited).fork();
    w.tag(groups.number, WireType.Varint).int64(5n).tag(groups.number, WireType.Varint).int64(7n);
    for (const _ of numbers) w.join();
    const bytes = w.finish();
    const got = RuntimeServiceCodec.containerStatus.decode(bytes);
    expect(got).toEqual(fromBinary(method.output, bytes, NO_UNKNOWN));
    expect(got.status?.user?.linux?.supplementalGroups).toEqual([5n, 7n]);
  });

  test("a map entry without its key or value has the empty string, and __proto__ is an ordinary key", () => {
    const w = new BinaryWriter();
    // VersionRequest has no map; PodSandboxStatusResponse.info is map<string, string>.
    const method = RuntimeService.method.podSandboxStatus;
    const infoNo = method.output.fields.find((f) => f.localName === "info")!.number;
    w.tag(infoNo, WireType.LengthDelimited).fork().tag(2, WireType.LengthDelimited).string("no key").join();
    w.tag(infoNo, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string("no value").join();
    w.tag(infoNo, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string("__proto__").tag(2, WireType.LengthDelimited).string("x").join();
    const bytes = w.finish();
    const got = RuntimeServiceCodec.podSandboxStatus.decode(bytes);
    expect(got).toEqual(fromBinary(method.output, bytes, NO_UNKNOWN));
    expect(Object.keys(got.info)).toEqual(["", "no value", "__proto__"]);
    expect(Object.getPrototypeOf(got.info)).toBe(Object.prototype);
  });

  test("the enums are the generated ones, both ways", () => {
    expect(codec.ContainerState.CONTAINER_RUNNING).toBe(1);
    expect(codec.ContainerState[1]).toBe("CONTAINER_RUNNING");
    for (const e of [...file_runtime_v1_api.enums, ...file_runtime_v1_api.messages.flatMap((m) => m.nestedEnums)]) {
      const name = e.typeName.slice("runtime.v1.".length).replaceAll(".", "_");
      const values = (codec as unknown as Record<string, Record<string | number, string | number>>)[name]!;
      for (const v of e.values) {
        expect(values[v.localName]).toBe(v.number);
        expect(values[v.number]).toBe(v.localName);
      }
    }
  });
});
