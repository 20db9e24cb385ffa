/**
 * Value semantics of JSON trees (decoded manifests, API objects): a key whose value is undefined
 * counts as absent, as it would after a round trip through JSON; key order never matters;
 * everything else is compared exactly (an empty map differs from no map, as reflect.DeepEqual has
 * it in the kubelet).
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

/**
 * A deep copy of a JSON tree (an API object, a decoded manifest, a status): what a round trip
 * through JSON keeps, so a key whose value is undefined is dropped, as deepEqual already treats it.
 * Not for Dates, Maps, typed arrays or cycles. Under Bun it is 2.4 times as fast as
 * structuredClone for a pod (3.6 against 8.8 µs, docs/lean.md), and pods are copied at every
 * watch event and status change.
 */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
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
