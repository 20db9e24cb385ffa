/**
 * The container hash the kubelet writes in io.kubernetes.container.hash (kubecontainer.HashContainer,
 * 1.31+): FNV-32a over the Go-formatted dump of the JSON of {name, image}. Only name and image count,
 * so upgrading bunlet never restarts containers. The byte layout below reproduces what the kubelet
 * hashes (Go's json.Marshal of a map, printed by spew as `([]uint8)[123 34 ...]`), so bunlet and the
 * kubelet agree on the value for the same container (upstream's own fixture is in the unit test).
 */
import type { Container } from "../api/index.ts";

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

function fnv32a(bytes: Uint8Array): number {
  let h = FNV32_OFFSET;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, FNV32_PRIME) >>> 0;
  }
  return h;
}

/** A JSON string as Go's encoding/json writes it (it also escapes <, >, & and U+2028/2029). */
function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Hex, no padding (strconv.FormatUint(hash, 16)). */
export function hashContainer(container: Pick<Container, "name" | "image">): string {
  // Go sorts map keys, so "image" precedes "name".
  const json = `{"image":${goJsonString(container.image ?? "")},"name":${goJsonString(container.name)}}`;
  const bytes = new TextEncoder().encode(json);
  const dumped = `([]uint8)[${Array.from(bytes).join(" ")}]`;
  return fnv32a(new TextEncoder().encode(dumped)).toString(16);
}

/** True when the running container's recorded hash differs from the spec's (kuberuntime containerChanged). */
export function containerChanged(container: Container, statusHash: string): boolean {
  // Parse both sides: a missing or malformed annotation reads as 0, which never matches (as upstream).
  const recorded = Number.parseInt(statusHash, 16);
  return Number.parseInt(hashContainer(container), 16) !== (Number.isNaN(recorded) ? 0 : recorded);
}
