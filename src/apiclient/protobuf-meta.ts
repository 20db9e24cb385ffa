/**
 * The resourceVersion of an object the apiserver answered in its protobuf encoding
 * (`application/vnd.kubernetes.protobuf`, apimachinery's runtime/serializer/protobuf): the
 * 4-byte magic `k8s\0`, then a runtime.Unknown message whose field 2 (`raw`) is the object; an
 * object's field 1 is its ObjectMeta, whose field 6 is `resourceVersion`. Only that path is
 * read; every other field is skipped by its wire type. A protobuf answer is a third of the JSON
 * one for a small object such as a Lease, which the node renews six times a minute.
 */

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

export class ProtobufError extends Error {
  override readonly name = "ProtobufError";
}

/** A varint at pos: its value (up to 2^53) and the position after it. */
function varint(buf: Uint8Array, pos: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let i = pos; i < buf.length && i < pos + 10; i++) {
    const byte = buf[i]!;
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) return [value, i + 1];
    scale *= 128;
  }
  throw new ProtobufError(`a varint at byte ${pos} does not end`);
}

/** The bytes of the first length-delimited field `field` of a message, or undefined. */
function lengthDelimited(buf: Uint8Array, field: number): Uint8Array | undefined {
  let pos = 0;
  while (pos < buf.length) {
    const [key, afterKey] = varint(buf, pos);
    const wireType = key & 7;
    pos = afterKey;
    if (wireType === 0) {
      pos = varint(buf, pos)[1];
    } else if (wireType === 1) {
      pos += 8;
    } else if (wireType === 5) {
      pos += 4;
    } else if (wireType === 2) {
      const [length, start] = varint(buf, pos);
      if (start + length > buf.length) throw new ProtobufError(`field ${key >>> 3} runs past the end of its message`);
      if (key >>> 3 === field) return buf.subarray(start, start + length);
      pos = start + length;
    } else {
      throw new ProtobufError(`wire type ${wireType} at byte ${pos} is not supported`);
    }
  }
  return undefined;
}

/** metadata.resourceVersion of the object in a protobuf-encoded apiserver answer. */
export function protobufResourceVersion(body: Uint8Array): string {
  if (body.length < MAGIC.length || MAGIC.some((b, i) => body[i] !== b)) throw new ProtobufError("the answer does not start with the Kubernetes protobuf magic k8s\\0");
  const raw = lengthDelimited(body.subarray(MAGIC.length), 2);
  if (raw === undefined) throw new ProtobufError("the answer's envelope has no object");
  const meta = lengthDelimited(raw, 1);
  if (meta === undefined) throw new ProtobufError("the object has no metadata");
  const rv = lengthDelimited(meta, 6);
  if (rv === undefined || rv.length === 0) throw new ProtobufError("the object's metadata has no resourceVersion");
  return new TextDecoder().decode(rv);
}
