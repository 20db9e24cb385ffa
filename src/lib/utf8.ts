/**
 * UTF-8 checked the way go-yaml's reader checks it (readerc.go), since the kubelet's manifest
 * decoder runs every file through go-yaml: the first bad sequence is refused with go-yaml's
 * words, and its byte offset. TextDecoder would silently turn it into U+FFFD instead, so that a
 * manifest the kubelet refuses would run here with altered names or values.
 */

/** What is wrong with the first invalid sequence of `bytes`, or undefined when it is valid UTF-8. */
export function invalidUtf8(bytes: Uint8Array): string | undefined {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i];
    const width = (lead & 0x80) === 0 ? 1 : (lead & 0xe0) === 0xc0 ? 2 : (lead & 0xf0) === 0xe0 ? 3 : (lead & 0xf8) === 0xf0 ? 4 : 0;
    if (width === 0) return `invalid leading UTF-8 octet at byte ${i}`;
    if (i + width > bytes.length) return `incomplete UTF-8 octet sequence at byte ${i}`;
    let value = width === 1 ? lead : lead & (0xff >> (width + 1));
    for (let k = 1; k < width; k++) {
      const octet = bytes[i + k];
      if ((octet & 0xc0) !== 0x80) return `invalid trailing UTF-8 octet at byte ${i + k}`;
      value = (value << 6) | (octet & 0x3f);
    }
    const shortest = width === 1 || (width === 2 && value >= 0x80) || (width === 3 && value >= 0x800) || (width === 4 && value >= 0x10000);
    if (!shortest) return `invalid length of a UTF-8 sequence at byte ${i}`;
    if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) return `invalid Unicode character at byte ${i}`;
    i += width;
  }
  return undefined;
}
