/**
 * The few DER encodings a stub PKCS#10 request needs (X.690): a tag with its definite length,
 * SEQUENCE, INTEGER 0, OBJECT IDENTIFIER, NULL and BIT STRING.
 */

function length(n: number): Uint8Array {
  if (n < 0x80) return Uint8Array.of(n);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

export function tlv(tag: number, ...contents: Uint8Array[]): Uint8Array {
  const body = Buffer.concat(contents);
  return new Uint8Array(Buffer.concat([Uint8Array.of(tag), length(body.length), body]));
}

export const sequence = (...items: Uint8Array[]) => tlv(0x30, ...items);
export const integerZero = () => Uint8Array.of(0x02, 0x01, 0x00);
export const derNull = () => Uint8Array.of(0x05, 0x00);
/** A BIT STRING of whole bytes (no unused bits). */
export const bitString = (bytes: Uint8Array) => tlv(0x03, Uint8Array.of(0), bytes);

/** An OBJECT IDENTIFIER from its dotted form. */
export function oid(dotted: string): Uint8Array {
  const arcs = dotted.split(".").map(Number);
  const out: number[] = [arcs[0] * 40 + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const base128: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) base128.unshift(0x80 | (v & 0x7f));
    out.push(...base128);
  }
  return tlv(0x06, Uint8Array.from(out));
}
