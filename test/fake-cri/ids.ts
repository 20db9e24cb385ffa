/**
 * Ids and names the way containerd's CRI plugin makes them: 64 lower-case hex characters, looked
 * up by exact id or by a unique prefix (containerd's truncindex), so `crictl inspect 3f2a` works.
 */
import { randomBytes } from "node:crypto";
import { notFound, unknown } from "./errors.ts";

/** Source of random bytes; injected so tests can make ids deterministic. */
export type RandomBytes = (n: number) => Uint8Array;

export const cryptoRandom: RandomBytes = (n) => randomBytes(n);

export function newId(random: RandomBytes): string {
  return Buffer.from(random(32)).toString("hex");
}

/**
 * Resolves an exact id or a unique prefix among `ids`. An unknown id is NOT_FOUND (what the
 * kubelet branches on); an ambiguous prefix is a plain error, as in containerd.
 */
export function resolveId(ids: Iterable<string>, idOrPrefix: string, what: string): string {
  if (idOrPrefix === "") throw notFound(`${what} ID must not be empty: not found`);
  const matches: string[] = [];
  for (const id of ids) {
    if (id === idOrPrefix) return id;
    if (id.startsWith(idOrPrefix)) matches.push(id);
  }
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) throw unknown(`${what} ${idOrPrefix}: multiple IDs found with provided prefix`);
  throw notFound(`an error occurred when try to find ${what} "${idOrPrefix}": not found`);
}
