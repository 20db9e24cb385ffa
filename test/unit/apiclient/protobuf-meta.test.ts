import { describe, expect, test } from "bun:test";
import { protobufResourceVersion } from "../../../src/apiclient/protobuf-meta.ts";

// A protobuf writer for the test's fixtures: field keys, varints and length-delimited fields.
const varint = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
};
const bytes = (field: number, value: number[] | string): number[] => {
  const data = typeof value === "string" ? [...new TextEncoder().encode(value)] : value;
  return [...varint((field << 3) | 2), ...varint(data.length), ...data];
};
const int = (field: number, n: number): number[] => [...varint(field << 3), ...varint(n)];
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** A Lease as the apiserver encodes it: ObjectMeta with name, namespace, uid, resourceVersion, creationTimestamp, managedFields; a spec. */
function lease(resourceVersion: string): Uint8Array {
  const meta = [
    ...bytes(1, "edge-1"),
    ...bytes(3, "kube-node-lease"),
    ...bytes(5, "3f1c9a52-0000-4000-8000-000000000001"),
    ...bytes(6, resourceVersion),
    ...int(7, 0),
    ...bytes(8, [...int(1, 1_764_000_000), ...int(2, 0)]),
    ...bytes(17, [...bytes(1, "bunlet"), ...bytes(2, "Update"), ...bytes(3, "coordination.k8s.io/v1")]),
  ];
  const spec = [...bytes(1, "edge-1"), ...int(2, 40), ...bytes(4, [...int(1, 1_764_000_010), ...int(2, 123_000)])];
  const object = [...bytes(1, meta), ...bytes(2, spec)];
  const typeMeta = [...bytes(1, "coordination.k8s.io/v1"), ...bytes(2, "Lease")];
  return new Uint8Array([...MAGIC, ...bytes(1, typeMeta), ...bytes(2, object), ...bytes(3, ""), ...bytes(4, "")]);
}

describe("the resourceVersion of a protobuf answer (runtime.Unknown → object → ObjectMeta field 6)", () => {
  test.each(["1", "4711", "18446744073709551615"])("resourceVersion %s", (rv) => {
    expect(protobufResourceVersion(lease(rv))).toBe(rv);
  });

  test("the Lease's metadata alone (PartialObjectMetadata, as asked for a renewal's answer)", () => {
    const meta = [...bytes(1, "edge-1"), ...bytes(3, "kube-node-lease"), ...bytes(6, "4712"), ...bytes(17, [...bytes(1, "bunlet"), ...bytes(2, "Update")])];
    const typeMeta = [...bytes(1, "meta.k8s.io/v1"), ...bytes(2, "PartialObjectMetadata")];
    const body = new Uint8Array([...MAGIC, ...bytes(1, typeMeta), ...bytes(2, bytes(1, meta)), ...bytes(3, ""), ...bytes(4, "")]);
    expect(protobufResourceVersion(body)).toBe("4712");
  });

  test.each([
    ["no magic", new Uint8Array([0x7b, 0x7d]), /Kubernetes protobuf magic/],
    ["an envelope without an object", new Uint8Array([...MAGIC, ...bytes(1, "x")]), /no object/],
    ["a truncated field", new Uint8Array([...MAGIC, 0x12, 0x40, 0x01]), /runs past the end/],
    ["an object without resourceVersion", new Uint8Array([...MAGIC, ...bytes(2, bytes(1, bytes(1, "n")))]), /no resourceVersion/],
  ])("%s is an error that says what is wrong", (_name, body, want) => {
    expect(() => protobufResourceVersion(body)).toThrow(want);
  });
});
