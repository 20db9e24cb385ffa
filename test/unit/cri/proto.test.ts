import { describe, expect, test } from "bun:test";
import { ScalarType, type DescField } from "@bufbuild/protobuf";
import { file_runtime_v1_api } from "../../../src/cri/gen/runtime/v1/api_pb.ts";
import upstream from "../../fixtures/cri-v1-fields.json";

// Every field we declare must have the upstream CRI v1 name, number and type, or containerd
// would decode our messages into the wrong fields without any error.
const scalarNames: Record<number, string> = {
  [ScalarType.STRING]: "string",
  [ScalarType.BOOL]: "bool",
  [ScalarType.BYTES]: "bytes",
  [ScalarType.DOUBLE]: "double",
  [ScalarType.INT32]: "int32",
  [ScalarType.INT64]: "int64",
  [ScalarType.UINT32]: "uint32",
  [ScalarType.UINT64]: "uint64",
};

function typeOf(f: DescField): string {
  switch (f.fieldKind) {
    case "scalar":
      return scalarNames[f.scalar];
    case "enum":
      return f.enum.name;
    case "message":
      return f.message.name;
    case "list":
      return `repeated ${f.listKind === "scalar" ? scalarNames[f.scalar] : f.listKind === "enum" ? f.enum.name : f.message.name}`;
    case "map":
      return `map<${scalarNames[f.mapKey]},${f.mapKind === "scalar" ? scalarNames[f.scalar] : f.mapKind === "enum" ? f.enum.name : f.message.name}>`;
  }
}

const table = upstream as Record<string, { number: number; type: string }>;

describe("proto/runtime/v1/api.proto matches upstream CRI v1", () => {
  const messages = file_runtime_v1_api.messages;
  test("the package is runtime.v1", () => {
    expect(file_runtime_v1_api.services.map((s) => s.typeName).sort()).toEqual(["runtime.v1.ImageService", "runtime.v1.RuntimeService"]);
  });
  for (const m of messages) {
    test(`${m.name}: every field has the upstream name, number and type`, () => {
      for (const f of m.fields) {
        const up = table[`${m.name}.${f.name}`];
        expect(up, `${m.name}.${f.name} is not an upstream field`).toBeDefined();
        expect(f.number).toBe(up.number);
        expect(typeOf(f)).toBe(up.type);
      }
      const upstreamFields = Object.keys(table).filter((k) => k.startsWith(`${m.name}.`) && table[k].type !== "enumval");
      const nested = upstreamFields.filter((k) => k.split(".").length > 2);
      expect(m.fields.length).toBe(upstreamFields.length - nested.length);
    });
  }
  test("enum values have the upstream numbers", () => {
    for (const e of file_runtime_v1_api.enums) {
      for (const v of e.values) expect(table[`${e.name}.${v.name}`]?.number).toBe(v.number);
    }
  });
  test("every rpc bunlet declares exists upstream with the same request and response", () => {
    for (const s of file_runtime_v1_api.services) {
      for (const m of s.methods) {
        const up = table[`rpc.${s.name}.${m.name}`];
        expect(up, `${s.name}.${m.name}`).toBeDefined();
        const stream = m.methodKind === "server_streaming" ? "stream " : "";
        expect(`${m.input.name} -> ${stream}${m.output.name}`).toBe(up.type);
      }
    }
  });
});
