/**
 * PEM as Go's encoding/pem reads and writes it, which is what the kubelet's trust bundles and
 * certificate chains go through: decode finds the first END line and the last BEGIN line before
 * it, drops headers (`Key: Value` lines), ignores spaces, tabs and line breaks in the base64 body,
 * and skips a block that does not parse; encode writes 64-character base64 lines. Bytes are held
 * as a latin1 string while scanning, so every index is a byte offset as in Go.
 */

export interface PemBlock {
  type: string;
  bytes: Uint8Array;
}

const PEM_START = "\n-----BEGIN ";
const PEM_END = "\n-----END ";
const PEM_END_OF_LINE = "-----";
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** getLine: the line without its "\n" (or "\r\n") and trailing spaces and tabs, the rest, and the bytes consumed. */
function getLine(data: string): [line: string, rest: string, consumed: number] {
  let i = data.indexOf("\n");
  let j: number;
  if (i < 0) {
    i = data.length;
    j = i;
  } else {
    j = i + 1;
    if (i > 0 && data[i - 1] === "\r") i--;
  }
  return [data.slice(0, i).replace(/[ \t]+$/, ""), data.slice(j), j];
}

/** base64.StdEncoding.Decode: "\r" and "\n" are skipped; anything else malformed fails (undefined). */
function decodeBase64(data: string): Uint8Array | undefined {
  const s = data.replace(/[\r\n]/g, "");
  if (s.length % 4 !== 0 || !BASE64.test(s)) return undefined;
  return new Uint8Array(Buffer.from(s, "base64"));
}

/** pem.Decode: the next block and what follows it, or undefined when no block is left. */
function decodePem(data: string): { block: PemBlock; rest: string } | undefined {
  let rest = data;
  let endTrailerIndex = 0;
  for (;;) {
    if (endTrailerIndex < 0 || endTrailerIndex > rest.length) return undefined;
    rest = rest.slice(endTrailerIndex);
    let endIndex = rest.indexOf(PEM_END);
    if (endIndex < 0) return undefined;
    endTrailerIndex = endIndex + PEM_END.length;
    const beginIndex = rest.slice(0, endIndex).lastIndexOf(PEM_START.slice(1));
    if (beginIndex < 0 || (beginIndex > 0 && rest[beginIndex - 1] !== "\n")) continue;
    rest = rest.slice(beginIndex + PEM_START.length - 1);
    endIndex -= beginIndex + PEM_START.length - 1;
    endTrailerIndex -= beginIndex + PEM_START.length - 1;

    let [typeLine, afterType, consumed] = getLine(rest);
    rest = afterType;
    endIndex -= consumed;
    endTrailerIndex -= consumed;
    if (!typeLine.endsWith(PEM_END_OF_LINE)) continue;
    typeLine = typeLine.slice(0, typeLine.length - PEM_END_OF_LINE.length);

    let headers = 0;
    let truncated = false;
    for (;;) {
      if (rest.length === 0) {
        truncated = true;
        break;
      }
      const [line, next, used] = getLine(rest);
      if (!line.includes(":")) break;
      headers++;
      rest = next;
      endIndex -= used;
      endTrailerIndex -= used;
    }
    if (truncated) return undefined;
    if (headers > 0 && endIndex < 0) continue;

    let endTrailer = rest.slice(endTrailerIndex);
    const endTrailerLen = typeLine.length + PEM_END_OF_LINE.length;
    if (endTrailer.length < endTrailerLen) continue;
    const restOfEndLine = endTrailer.slice(endTrailerLen);
    endTrailer = endTrailer.slice(0, endTrailerLen);
    if (!endTrailer.startsWith(typeLine) || !endTrailer.endsWith(PEM_END_OF_LINE)) continue;
    if (getLine(restOfEndLine)[0].length !== 0) continue;

    let bytes: Uint8Array | undefined = new Uint8Array(0);
    if (endIndex > 0) {
      bytes = decodeBase64(rest.slice(0, endIndex).replace(/[ \t]/g, ""));
      if (bytes === undefined) continue;
    }
    return { block: { type: typeLine, bytes }, rest: getLine(rest.slice(endIndex + PEM_END.length - 1))[1] };
  }
}

/** Every block pem.Decode finds in data, in order. */
export function decodeAllPem(data: Uint8Array | string): PemBlock[] {
  let rest = typeof data === "string" ? Buffer.from(data, "utf8").toString("latin1") : Buffer.from(data).toString("latin1");
  const blocks: PemBlock[] = [];
  for (;;) {
    const found = decodePem(rest);
    if (!found) return blocks;
    blocks.push(found.block);
    rest = found.rest;
  }
}

/** pem.EncodeToMemory of a block without headers. */
export function encodePem(type: string, bytes: Uint8Array): string {
  const b64 = Buffer.from(bytes).toString("base64");
  let out = `-----BEGIN ${type}-----\n`;
  for (let i = 0; i < b64.length; i += 64) out += `${b64.slice(i, i + 64)}\n`;
  return `${out}-----END ${type}-----\n`;
}

/** cleanCertificateChain: every block re-encoded as a bare CERTIFICATE, inter-block data and headers dropped. */
export function cleanCertificateChain(chain: string): Uint8Array {
  return Buffer.from(decodeAllPem(chain).map((b) => encodePem("CERTIFICATE", b.bytes)).join(""), "latin1");
}
