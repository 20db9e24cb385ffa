/**
 * Value semantics for decoded manifests, which are plain JSON trees. A key whose value is
 * undefined counts as absent, as it would after a round trip through JSON; everything else is
 * compared exactly (an empty map differs from no map, as reflect.DeepEqual has it in the kubelet).
 */

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function presentKeys(o: Record<string, unknown>): string[] {
  return Object.keys(o).filter((k) => o[k] !== undefined);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = presentKeys(a);
    const kb = presentKeys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/** A deep copy of a JSON tree (pods handed to consumers never alias bunlet's own copy). */
export function deepCopy<T>(value: T): T {
  return structuredClone(value);
}

/** JSON with object keys sorted at every level: the same pod always gives the same bytes. */
export function canonicalJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJSON(v ?? null)).join(",")}]`;
  if (isObject(value)) {
    const keys = presentKeys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJSON(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}
