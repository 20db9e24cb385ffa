/**
 * Generates src/cri/gen/runtime/v1/api_codec.ts from the descriptors protoc-gen-es wrote in
 * api_pb.ts: for every CRI message a `create` (what @bufbuild/protobuf's `create` makes of an init
 * object), an encoder and a decoder (what its `toBinary` and `fromBinary` write and read, unknown
 * fields skipped), the CRI enums as values, and one table per service of the methods with their
 * gRPC paths. The agent loads this file and never api_pb.ts's values, so it does not build the
 * descriptors at start (about 4 MiB of memory, docs/lean.md "What loading a module costs");
 * crictl, the library transports and the tests still use them.
 * test/unit/cri/codec.test.ts checks every message against @bufbuild/protobuf itself.
 *
 *   bun scripts/generate-codec.ts      (scripts/generate-proto.sh runs it after buf generate)
 */
import { ScalarType, type DescEnum, type DescField, type DescMessage, type DescService } from "@bufbuild/protobuf";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { file_runtime_v1_api } from "../src/cri/testing.ts";

const OUT = join(import.meta.dir, "..", "src", "cri", "gen", "runtime", "v1", "api_codec.ts");
const file = file_runtime_v1_api;
const lines: string[] = [];
const emit = (s = "") => lines.push(s);

/** The BinaryReader/BinaryWriter method and wire type of a scalar. */
function scalarIo(t: ScalarType): { method: string; wire: string } {
  const m: Record<number, [string, string]> = {
    [ScalarType.DOUBLE]: ["double", "Bit64"],
    [ScalarType.FLOAT]: ["float", "Bit32"],
    [ScalarType.INT64]: ["int64", "Varint"],
    [ScalarType.UINT64]: ["uint64", "Varint"],
    [ScalarType.INT32]: ["int32", "Varint"],
    [ScalarType.FIXED64]: ["fixed64", "Bit64"],
    [ScalarType.FIXED32]: ["fixed32", "Bit32"],
    [ScalarType.BOOL]: ["bool", "Varint"],
    [ScalarType.STRING]: ["string", "LengthDelimited"],
    [ScalarType.BYTES]: ["bytes", "LengthDelimited"],
    [ScalarType.UINT32]: ["uint32", "Varint"],
    [ScalarType.SFIXED32]: ["sfixed32", "Bit32"],
    [ScalarType.SFIXED64]: ["sfixed64", "Bit64"],
    [ScalarType.SINT32]: ["sint32", "Varint"],
    [ScalarType.SINT64]: ["sint64", "Varint"],
  };
  const [method, wire] = m[t]!;
  return { method, wire };
}

function zeroOf(t: ScalarType): string {
  switch (t) {
    case ScalarType.STRING:
      return '""';
    case ScalarType.BOOL:
      return "false";
    case ScalarType.BYTES:
      return "EMPTY_BYTES";
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
    case ScalarType.SINT64:
      return "0n";
    default:
      return "0";
  }
}

/** The expression that reads one scalar (strings validated as UTF-8 where the proto says so). */
function readScalar(f: DescField, t: ScalarType): string {
  const { method } = scalarIo(t);
  if (t === ScalarType.STRING) return `r.string(${f.utf8Validation ? "true" : "false"})`;
  return `r.${method}()`;
}

/** The condition under which toBinary writes a singular implicit-presence scalar. */
function writeCondition(t: ScalarType, v: string): string {
  switch (t) {
    case ScalarType.BOOL:
      return `${v} !== false`;
    case ScalarType.STRING:
      return `${v} !== ""`;
    case ScalarType.BYTES:
      return `!(${v} instanceof Uint8Array) || ${v}.byteLength > 0`;
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return `!Object.is(${v}, 0)`;
    default:
      return `${v} != 0`;
  }
}

function unsupported(f: DescField, what: string): never {
  throw new Error(`generate-codec: ${f.parent.typeName}.${f.name}: ${what} is not supported; extend scripts/generate-codec.ts`);
}

function checkSupported(m: DescMessage): void {
  if (m.oneofs.length > 0) throw new Error(`generate-codec: ${m.typeName} has a oneof; extend scripts/generate-codec.ts`);
  for (const f of m.fields) {
    if (f.fieldKind !== "list" && f.fieldKind !== "map" && f.presence !== 2 && f.fieldKind !== "message") unsupported(f, "explicit presence");
    if (f.fieldKind === "message" && f.delimitedEncoding) unsupported(f, "delimited encoding");
    if (f.fieldKind === "list" && f.listKind === "message" && f.delimitedEncoding) unsupported(f, "delimited encoding");
    if (f.fieldKind === "map" && (f.mapKey !== ScalarType.STRING || f.mapKind !== "scalar" || f.scalar !== ScalarType.STRING)) unsupported(f, "a map other than map<string, string>");
    if (f.fieldKind === "scalar" && f.longAsString) unsupported(f, "jstype = JS_STRING");
    if (f.fieldKind === "message" && f.message.typeName.startsWith("google.protobuf.")) unsupported(f, "a well-known type");
  }
}

function emitEnum(e: DescEnum): void {
  // protoc-gen-es names a nested enum Parent_Child.
  const name = e.typeName.slice(file.proto.package.length + 1).replaceAll(".", "_");
  const entries: string[] = [];
  for (const v of e.values) entries.push(`  ${v.localName}: ${v.number},`);
  for (const v of e.values) entries.push(`  ${v.number}: ${JSON.stringify(v.localName)},`);
  emit(`export const ${name} = {\n${entries.join("\n")}\n} as unknown as typeof pb.${name};`);
  emit(`export type ${name} = pb.${name};`);
  emit();
}

function emitCreate(m: DescMessage): void {
  const name = m.name;
  emit(`export function make${name}(init?: MessageInitShape<typeof pb.${name}Schema>): pb.${name} {`);
  emit(`  if (isMessage(init, ${JSON.stringify(m.typeName)})) return init as pb.${name};`);
  emit("  const i = (init ?? {}) as Init;");
  emit(`  const m: Init = { $typeName: ${JSON.stringify(m.typeName)} };`);
  for (const f of m.fields) {
    const p = JSON.stringify(f.localName);
    const v = `i[${p}]`;
    switch (f.fieldKind) {
      case "scalar":
        emit(`  m[${p}] = ${v} != null ? ${f.scalar === ScalarType.BYTES ? `toU8Arr(${v})` : v} : ${zeroOf(f.scalar)};`);
        break;
      case "enum":
        emit(`  m[${p}] = ${v} != null ? ${v} : ${f.enum.values[0]!.number};`);
        break;
      case "message":
        emit(`  if (${v} != null) m[${p}] = asMessage(${v}, ${JSON.stringify(f.message.typeName)}, make${f.message.name});`);
        break;
      case "list":
        if (f.listKind === "message") emit(`  m[${p}] = Array.isArray(${v}) ? ${v}.map((x: unknown) => asMessage(x, ${JSON.stringify(f.message.typeName)}, make${f.message.name})) : (${v} ?? []);`);
        else if (f.listKind === "scalar" && f.scalar === ScalarType.BYTES) emit(`  m[${p}] = Array.isArray(${v}) ? ${v}.map(toU8Arr) : (${v} ?? []);`);
        else emit(`  m[${p}] = ${v} ?? [];`);
        break;
      case "map":
        emit(`  m[${p}] = ${v} ?? {};`);
        break;
    }
  }
  emit(`  return m as pb.${name};`);
  emit("}");
  emit();
}

function emitRead(m: DescMessage): void {
  emit(`function read${m.name}(r: BinaryReader, end: number, m: Init): Init {`);
  emit("  while (r.pos < end) {");
  emit("    const [no, wt] = r.tag();");
  emit("    switch (no) {");
  for (const f of m.fields) {
    const p = JSON.stringify(f.localName);
    emit(`      case ${f.number}: {`);
    switch (f.fieldKind) {
      case "scalar":
        emit(`        m[${p}] = ${readScalar(f, f.scalar)};`);
        break;
      case "enum":
        emit(`        m[${p}] = r.int32();`);
        break;
      case "message":
        emit("        const len = r.uint32();");
        emit(`        m[${p}] = read${f.message.name}(r, r.pos + len, m[${p}] ?? make${f.message.name}());`);
        break;
      case "list":
        if (f.listKind === "message") {
          emit("        const len = r.uint32();");
          emit(`        m[${p}].push(read${f.message.name}(r, r.pos + len, make${f.message.name}()));`);
        } else {
          const t = f.listKind === "enum" ? ScalarType.INT32 : f.scalar;
          const read = readScalar(f, t);
          if (t !== ScalarType.STRING && t !== ScalarType.BYTES) {
            emit("        if (wt === WireType.LengthDelimited) {");
            emit("          const packedEnd = r.uint32() + r.pos;");
            emit(`          while (r.pos < packedEnd) m[${p}].push(${read});`);
            emit(`        } else m[${p}].push(${read});`);
          } else emit(`        m[${p}].push(${read});`);
        }
        break;
      case "map":
        emit(`        readStringMapEntry(r, m[${p}], ${f.utf8Validation ? "true" : "false"});`);
        break;
    }
    emit("        break;");
    emit("      }");
  }
  emit("      default:");
  emit("        r.skip(wt, no);");
  emit("    }");
  emit("  }");
  emit("  return m;");
  emit("}");
  emit();
}

function emitWrite(m: DescMessage): void {
  emit(`function write${m.name}(w: BinaryWriter, m: Init): void {`);
  const sorted = [...m.fields].sort((a, b) => a.number - b.number);
  if (sorted.length === 0) emit("  void w, m;");
  for (const f of sorted) {
    const p = JSON.stringify(f.localName);
    const v = `m[${p}]`;
    switch (f.fieldKind) {
      case "scalar": {
        const { method, wire } = scalarIo(f.scalar);
        emit(`  if (${writeCondition(f.scalar, v)}) w.tag(${f.number}, WireType.${wire}).${method}(${v});`);
        break;
      }
      case "enum":
        emit(`  if (${v} !== ${f.enum.values[0]!.number}) w.tag(${f.number}, WireType.Varint).int32(${v});`);
        break;
      case "message":
        emit(`  if (${v} !== undefined && Object.hasOwn(m, ${p})) {`);
        emit(`    w.tag(${f.number}, WireType.LengthDelimited).fork();`);
        emit(`    write${f.message.name}(w, ${v});`);
        emit("    w.join();");
        emit("  }");
        break;
      case "list":
        if (f.listKind === "message") {
          emit(`  for (const item of ${v}) {`);
          emit(`    w.tag(${f.number}, WireType.LengthDelimited).fork();`);
          emit(`    write${f.message.name}(w, item);`);
          emit("    w.join();");
          emit("  }");
        } else {
          const t = f.listKind === "enum" ? ScalarType.INT32 : f.scalar;
          const { method, wire } = scalarIo(t);
          if (f.packed) {
            emit(`  if (${v}.length > 0) {`);
            emit(`    w.tag(${f.number}, WireType.LengthDelimited).fork();`);
            emit(`    for (const item of ${v}) w.${method}(item);`);
            emit("    w.join();");
            emit("  }");
          } else emit(`  for (const item of ${v}) w.tag(${f.number}, WireType.${wire}).${method}(item);`);
        }
        break;
      case "map":
        emit(`  writeStringMap(w, ${f.number}, ${v});`);
        break;
    }
  }
  emit("}");
  emit();
}

function emitService(s: DescService): void {
  emit(`/** ${s.typeName}: each method's gRPC path and its messages' codec. */`);
  emit(`export const ${s.name}Codec = {`);
  for (const method of s.methods) {
    const kind = method.methodKind;
    if (kind !== "unary" && kind !== "server_streaming") throw new Error(`generate-codec: ${s.typeName}/${method.name}: ${kind} is not supported`);
    const i = method.input.name;
    const o = method.output.name;
    emit(`  ${method.localName}: {`);
    emit(`    name: ${JSON.stringify(method.name)},`);
    emit(`    path: ${JSON.stringify(`/${s.typeName}/${method.name}`)},`);
    emit(`    kind: ${JSON.stringify(kind)},`);
    emit(`    create: make${i},`);
    emit(`    encode: (m: pb.${i}) => encode(write${i}, m),`);
    emit(`    decode: (bytes: Uint8Array) => decode(read${o}, make${o}(), bytes) as pb.${o},`);
    emit(`  } as CodecMethod<pb.${i}, pb.${o}, MessageInitShape<typeof pb.${i}Schema>, ${JSON.stringify(kind)}>,`);
  }
  emit("} as const;");
  emit();
}

const messages = file.messages;
for (const m of messages) checkSupported(m);

emit("// @generated by scripts/generate-codec.ts from the descriptors of api_pb.ts; do not edit.");
emit("// The agent's CRI codec: create, encode and decode of every message as @bufbuild/protobuf's");
emit("// create, toBinary and fromBinary (unknown fields skipped), without building the descriptors.");
emit("/* eslint-disable */");
emit('import type { MessageInitShape } from "@bufbuild/protobuf";');
emit('import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";');
emit('import type * as pb from "./api_pb.ts";');
emit();
emit("// biome-ignore lint/suspicious/noExplicitAny: generated field access by name");
emit("type Init = Record<string, any>;");
emit();
emit("const EMPTY_BYTES = new Uint8Array(0);");
emit();
emit("function isMessage(value: unknown, typeName: string): boolean {");
emit('  return value !== null && typeof value === "object" && (value as { $typeName?: unknown }).$typeName === typeName;');
emit("}");
emit();
emit("function asMessage(value: unknown, typeName: string, create: (init: never) => unknown): unknown {");
emit('  if (value === null || typeof value !== "object" || Array.isArray(value) || isMessage(value, typeName)) return value;');
emit("  return create(value as never);");
emit("}");
emit();
emit("function toU8Arr(value: unknown): unknown {");
emit("  return Array.isArray(value) ? new Uint8Array(value) : value;");
emit("}");
emit();
emit("function readStringMapEntry(r: BinaryReader, record: Init, validate: boolean): void {");
emit("  const end = r.uint32() + r.pos;");
emit("  let key: string | undefined;");
emit("  let value: string | undefined;");
emit("  while (r.pos < end) {");
emit("    const [no, wt] = r.tag();");
emit("    if (no === 1) key = r.string(validate);");
emit("    else if (no === 2) value = r.string(validate);");
emit("    else r.skip(wt, no);");
emit("  }");
emit('  key ??= "";');
emit('  if (key === "__proto__") Object.defineProperty(record, key, { value: value ?? "", enumerable: true, configurable: true, writable: true });');
emit('  else record[key] = value ?? "";');
emit("}");
emit();
emit("function writeStringMap(w: BinaryWriter, no: number, record: Record<string, string>): void {");
emit("  for (const key of Object.keys(record)) {");
emit("    w.tag(no, WireType.LengthDelimited).fork();");
emit("    w.tag(1, WireType.LengthDelimited).string(key);");
emit("    w.tag(2, WireType.LengthDelimited).string(record[key]!);");
emit("    w.join();");
emit("  }");
emit("}");
emit();
emit("function encode<M>(write: (w: BinaryWriter, m: Init) => void, m: M): Uint8Array {");
emit("  const w = new BinaryWriter();");
emit("  write(w, m as Init);");
emit("  return w.finish();");
emit("}");
emit();
emit("function decode(read: (r: BinaryReader, end: number, m: Init) => Init, m: Init, bytes: Uint8Array): Init {");
emit("  return read(new BinaryReader(bytes), bytes.byteLength, m);");
emit("}");
emit();
emit("/** One method of a CRI service: its gRPC path and how its request and answer go on the wire. */");
emit('export interface CodecMethod<I, O, Init, K extends "unary" | "server_streaming" = "unary" | "server_streaming"> {');
emit("  name: string;");
emit("  path: string;");
emit("  kind: K;");
emit("  create(init?: Init): I;");
emit("  encode(message: I): Uint8Array;");
emit("  decode(bytes: Uint8Array): O;");
emit("}");
emit();
for (const e of [...file.enums, ...messages.flatMap((m) => m.nestedEnums)]) emitEnum(e);
for (const m of messages) {
  emitCreate(m);
  emitRead(m);
  emitWrite(m);
}
for (const s of file.services) emitService(s);

writeFileSync(OUT, `${lines.join("\n").trimEnd()}\n`);
console.log(`generate-codec: wrote ${OUT} (${messages.length} messages, ${file.enums.length} enums, ${file.services.length} services)`);
