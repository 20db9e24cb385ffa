/**
 * YAML read the way the kubelet reads it: sigs.k8s.io/yaml's YAMLToJSON over go-yaml v2, for
 * static manifests and the --config file alike. Scalars resolve by YAML 1.1 rules as go-yaml v2
 * resolves them: yes/no/on/off/y/n are booleans, 0644 is octal, 0x1F hex, 1_000 a thousand;
 * timestamps and 1:20 stay strings; .inf and .nan cannot become JSON. Map keys become strings as
 * sigs.k8s.io/yaml makes them ("y" is "true", 1.5 is "1.5"), merge keys (<<) apply in document
 * order as go-yaml v2 applies them, and the result is the JSON value the kubelet decodes.
 *
 * Stricter than the kubelet, as bunlet always was: a key given twice (also after conversion, as
 * `yes` and `true`) is an error, and aliases may expand at most 100 times. Beyond that count, the
 * size they expand to is capped as go-yaml v2/v3 cap it (CVE-2019-11253): a document whose
 * decoded nodes come mostly from alias expansion is "excessive aliasing" (aliasBudgetExceeded),
 * so a small anchored list referenced a hundred times is refused after ~1M nodes, not decoded.
 */
import { invalidUtf8 } from "./utf8.ts";
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node, type Scalar } from "yaml";

/** What is wrong and where: `path` is the JSON field path ("" for the document or its syntax). */
export class YamlError extends Error {
  constructor(
    message: string,
    readonly path = "",
  ) {
    super(message);
    this.name = "YamlError";
  }
}

const maxAliasExpansions = 100;
/**
 * go-yaml's alias_ratio_range_low/high: up to 400k decoded nodes 99% may come from aliases; the
 * allowance falls linearly to 10% at 4M nodes, so alias-driven work stays near 400k nodes.
 */
const aliasRatioRangeLow = 400_000;
const aliasRatioRangeHigh = 4_000_000;

/** go-yaml's allowedAliasRatio(decodeCount). */
function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= aliasRatioRangeLow) return 0.99;
  if (decodeCount >= aliasRatioRangeHigh) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - aliasRatioRangeLow) / (aliasRatioRangeHigh - aliasRatioRangeLow));
}

/** go-yaml's check in decoder.unmarshal, made before each node is decoded. */
function aliasBudgetExceeded(decodeCount: number, aliasCount: number): boolean {
  return aliasCount > 100 && decodeCount > 1000 && aliasCount / decodeCount > allowedAliasRatio(decodeCount);
}
const maxInt64 = (1n << 63n) - 1n;
const maxUint64 = (1n << 64n) - 1n;

type Resolved =
  | { tag: "str"; value: string }
  | { tag: "timestamp"; value: string }
  | { tag: "null"; value: null }
  | { tag: "bool"; value: boolean }
  | { tag: "int"; value: bigint }
  | { tag: "float"; value: number }
  | { tag: "merge"; value: string };

const resolveMap = new Map<string, Resolved>();
for (const s of ["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"]) resolveMap.set(s, { tag: "bool", value: true });
for (const s of ["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"]) resolveMap.set(s, { tag: "bool", value: false });
for (const s of ["", "~", "null", "Null", "NULL"]) resolveMap.set(s, { tag: "null", value: null });
for (const s of [".nan", ".NaN", ".NAN"]) resolveMap.set(s, { tag: "float", value: Number.NaN });
for (const s of [".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"]) resolveMap.set(s, { tag: "float", value: Infinity });
for (const s of ["-.inf", "-.Inf", "-.INF"]) resolveMap.set(s, { tag: "float", value: -Infinity });
resolveMap.set("<<", { tag: "merge", value: "<<" });

const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** Go's strconv.ParseInt/ParseUint with base 0, once underscores are gone: sign, then a body. */
const goInteger = /^([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/;
/** The forms go-yaml v2 tries with time.Parse (date, date and time with or without a zone). */
const timestamp = /^\d{4}-\d{1,2}-\d{1,2}(?:(?:[Tt]\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))| \d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?)?$/;

/** An int64, or a uint64 without a sign, as go-yaml v2 resolves integers; undefined otherwise. */
function goInt(plain: string): bigint | undefined {
  const m = goInteger.exec(plain);
  if (!m) return undefined;
  const [, sign, body] = m;
  // A leading 0 means octal; JavaScript spells the prefixes in lower case.
  const literal = /^0[0-7]/.test(body) ? `0o${body.slice(1)}` : body.length > 1 ? body.slice(0, 2).toLowerCase() + body.slice(2) : body;
  const value = sign === "-" ? -BigInt(literal) : BigInt(literal);
  const inRange = sign === "" ? value <= maxUint64 : value >= -(maxInt64 + 1n) && value <= maxInt64;
  return inRange ? value : undefined;
}

/** A finite float64 as Go's ParseFloat reads it (out of range is an error there, not ±Inf). */
function goFloat(text: string): number | undefined {
  const f = Number(text);
  return Number.isFinite(f) ? f : undefined;
}

/** go-yaml v2 resolve() for an untagged plain scalar. */
function resolvePlain(s: string): Resolved {
  const known = resolveMap.get(s);
  if (known) return known;
  const c = s[0];
  if (c === ".") {
    const f = /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s) ? goFloat(s) : undefined;
    if (f !== undefined) return { tag: "float", value: f };
  } else if (c === "+" || c === "-" || (c >= "0" && c <= "9")) {
    if (timestamp.test(s)) return { tag: "timestamp", value: s };
    const plain = s.replaceAll("_", "");
    const int = goInt(plain);
    if (int !== undefined) return { tag: "int", value: int };
    const f = yamlStyleFloat.test(plain) ? goFloat(plain) : undefined;
    if (f !== undefined) return { tag: "float", value: f };
  }
  return { tag: "str", value: s };
}

const shortTag = (tag: string) => tag.replace(/^tag:yaml\.org,2002:/, "!!");

/** A scalar with an explicit tag: go-yaml resolves it and fails when it is not of that type. */
function resolveTagged(node: Scalar, tag: string, path: string): Resolved {
  const text = String(node.value);
  switch (tag) {
    case "!!str":
      return { tag: "str", value: text };
    case "!!binary": {
      const b64 = text.replace(/[\r\n]/g, "");
      if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64)) {
        throw new YamlError("!!binary value contains invalid base64 data", path);
      }
      return { tag: "str", value: Buffer.from(b64, "base64").toString("utf8") };
    }
    case "!!int":
    case "!!float":
    case "!!bool":
    case "!!null":
    case "!!timestamp": {
      const r = resolvePlain(text);
      const want = tag.slice(2);
      if (r.tag === want) return r;
      if (want === "float" && r.tag === "int") return { tag: "float", value: Number(r.value) };
      throw new YamlError(`cannot decode !!${r.tag} \`${text}\` as a ${tag}`, path);
    }
    default:
      // Any other tag leaves the text as it is.
      return { tag: "str", value: text };
  }
}

/** strconv.FormatFloat(f, 'g', -1, 32), which sigs.k8s.io/yaml uses for float keys. */
function formatFloat32(f: number): string {
  if (Number.isNaN(f)) return ".nan";
  const f32 = Math.fround(f);
  if (f32 === Infinity) return ".inf";
  if (f32 === -Infinity) return "-.inf";
  if (f32 === 0) return Object.is(f32, -0) ? "-0" : "0";
  let digits = "";
  for (let p = 1; p <= 9; p++) {
    digits = f32.toPrecision(p);
    if (Math.fround(Number(digits)) === f32) break;
  }
  const [mantissa, exp] = Number(digits).toExponential().split("e");
  const exponent = Number(exp);
  if (exponent < -4 || exponent >= 6) {
    return `${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return String(Number(digits));
}

class Reader {
  #expansions = 0;
  /** Nodes decoded, and those of them decoded inside an alias (go-yaml's decodeCount, aliasCount). */
  #decoded = 0;
  #decodedInAlias = 0;
  readonly #expanding = new Set<Node>();

  constructor(
    readonly doc: Document.Parsed,
    readonly lines: LineCounter,
  ) {}

  /** Counts one node about to be decoded; refuses the document once aliases dominate it. */
  #count(): void {
    this.#decoded++;
    if (this.#expanding.size > 0) this.#decodedInAlias++;
    if (aliasBudgetExceeded(this.#decoded, this.#decodedInAlias)) {
      throw new YamlError(`document contains excessive aliasing: ${this.#decodedInAlias} of its first ${this.#decoded} nodes come from aliases (a YAML bomb)`);
    }
  }

  value(node: unknown, path: string): unknown {
    this.#count();
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return this.#alias(node.resolve(this.doc) as Node | undefined, node.source, path, (n) => this.value(n, path));
    if (isScalar(node)) return this.#scalarJSON(this.#resolve(node, path), path);
    if (isSeq(node)) return node.items.map((item, i) => this.value(item, `${path}[${i}]`));
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      this.#mapInto(node, out, new Map(), path);
      return out;
    }
    throw new YamlError("unsupported YAML node", path);
  }

  #alias<T>(target: Node | undefined, name: string, path: string, read: (n: Node) => T): T {
    if (!target) throw new YamlError(`unknown anchor '${name}' referenced`, path);
    if (this.#expanding.has(target)) throw new YamlError(`anchor '${name}' value contains itself`, path);
    if (++this.#expansions > maxAliasExpansions) throw new YamlError("Excessive alias count indicates a resource exhaustion attack", path);
    this.#expanding.add(target);
    try {
      return read(target);
    } finally {
      this.#expanding.delete(target);
    }
  }

  #resolve(node: Scalar, path: string): Resolved {
    if (node.tag) return resolveTagged(node, shortTag(node.tag), path);
    if (node.type !== "PLAIN") return { tag: "str", value: String(node.value) };
    return resolvePlain(String(node.value));
  }

  /** json.Marshal of what go-yaml decoded: no NaN or infinities in JSON. */
  #scalarJSON(r: Resolved, path: string): unknown {
    if (r.tag === "int") return Number(r.value);
    if (r.tag === "float" && !Number.isFinite(r.value)) {
      throw new YamlError(`json: unsupported value: ${Number.isNaN(r.value) ? "NaN" : r.value > 0 ? "+Inf" : "-Inf"}`, path);
    }
    return r.value;
  }

  /** A key as sigs.k8s.io/yaml turns it into a JSON object key. */
  #key(node: unknown, path: string): string {
    this.#count();
    if (isAlias(node)) return this.#alias(node.resolve(this.doc) as Node | undefined, node.source, path, (n) => this.#key(n, path));
    if (node === null || node === undefined) throw new YamlError("unsupported map key of type: <nil>", path);
    if (!isScalar(node)) throw new YamlError(`invalid map key: ${isSeq(node) ? "a sequence" : "a mapping"}`, path);
    const r = this.#resolve(node, path);
    switch (r.tag) {
      case "null":
        throw new YamlError("unsupported map key of type: <nil>", path);
      case "bool":
        return String(r.value);
      case "int":
        if (r.value > maxInt64) throw new YamlError(`unsupported map key of type: uint64, key: ${r.value}`, path);
        return String(r.value);
      case "float":
        return formatFloat32(r.value);
      default:
        return r.value;
    }
  }

  #where(node: Node): string {
    const { line, col } = this.lines.linePos(node.range?.[0] ?? 0);
    return `at line ${line}, column ${col}`;
  }

  /**
   * go-yaml v2's mapping(): pairs in document order; a merge sets every key of the merged
   * mapping(s), later explicit keys override them. `explicit` remembers keys written out in
   * this mapping, to refuse duplicates.
   */
  #mapInto(node: Node, out: Record<string, unknown>, explicit: Map<string, Node>, path: string): void {
    if (!isMap(node)) throw new YamlError("map merge requires map or sequence of maps as the value", path);
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      if (isScalar(keyNode) && !keyNode.tag && keyNode.type === "PLAIN" && keyNode.value === "<<") {
        this.#merge(pair.value as Node | null, out, path);
        continue;
      }
      const key = this.#key(keyNode, path);
      if (explicit.has(key)) throw new YamlError(`Map keys must be unique ${this.#where(keyNode!)}`, path);
      explicit.set(key, keyNode!);
      set(out, key, this.value(pair.value, path === "" ? key : `${path}.${key}`));
    }
  }

  #merge(value: Node | null, out: Record<string, unknown>, path: string): void {
    const mapping = (n: Node | null) => {
      this.#count();
      if (isAlias(n)) return this.#alias(n.resolve(this.doc) as Node | undefined, n.source, path, (t) => this.#mapInto(t, out, new Map(), path));
      return this.#mapInto(n as Node, out, new Map(), path);
    };
    // Earlier mappings of a sequence take precedence: apply them last.
    if (isSeq(value)) for (const item of [...value.items].reverse()) mapping(item as Node | null);
    else mapping(value);
  }
}

function set(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/**
 * The first YAML (or JSON) document of `input` as the JSON value the kubelet sees; undefined when
 * there is no document. Bytes must be valid UTF-8, as go-yaml requires. Throws YamlError.
 */
export function readYaml(input: string | Uint8Array): unknown {
  let text: string;
  if (typeof input === "string") text = input;
  else {
    const problem = invalidUtf8(input);
    if (problem !== undefined) throw new YamlError(problem);
    text = new TextDecoder().decode(input);
  }
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { schema: "failsafe", version: "1.1", uniqueKeys: true, lineCounter: lines });
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  if (!doc) return undefined;
  if (doc.errors.length > 0) throw new YamlError(doc.errors[0].message.split("\n")[0].replace(/:$/, ""));
  return new Reader(doc, lines).value(doc.contents, "");
}
