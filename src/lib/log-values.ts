/**
 * How one key=value pair is written in klog's text format (klog internal/serialize formatKV):
 * strings, errors and objects with their own toString (Go's fmt.Stringer, e.g. a pod reference)
 * are quoted like Go's strconv.Quote; numbers, booleans, null, lists and objects are written
 * bare the way Go's %+v writes them (`[a b]`, `{key:value}`, `map[key:value]`, `<nil>`); a value
 * with a line break becomes klog's indented block (`key=<`, tab-indented lines, ` >`).
 */

const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;
const SIMPLE_ESCAPES: Record<string, string> = {
  "\x07": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", '"': '\\"', "\\": "\\\\",
};

/** Go's strconv.Quote: printable characters stay, everything else is escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const escaped = SIMPLE_ESCAPES[ch];
    if (escaped) out += escaped;
    else if (PRINTABLE.test(ch)) out += ch;
    else {
      const cp = ch.codePointAt(0)!;
      if (cp >= 0xd800 && cp <= 0xdfff) out += "\\ufffd"; // a lone surrogate is invalid UTF-8 in Go
      else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, "0")}`;
      else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
      else out += `\\U${cp.toString(16).padStart(8, "0")}`;
    }
  }
  return out + '"';
}

/** An object whose class defines toString, like a Go type with a String() method. */
function isStringer(v: object): v is { toString(): string } {
  const proto = Object.getPrototypeOf(v);
  return proto !== null && proto !== Object.prototype && !Array.isArray(v) && !(v instanceof Map) &&
    typeof v.toString === "function" && v.toString !== Object.prototype.toString;
}

/** Go's %+v for a value inside a list or object: nothing is quoted. */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (v instanceof Error) return v.message;
  if (typeof v !== "object") return String(v);
  if (Array.isArray(v)) return `[${v.map(goValue).join(" ")}]`;
  if (v instanceof Map) {
    const entries = [...v.entries()].map(([k, x]) => [goValue(k), goValue(x)]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, x]) => `${k}:${x}`).join(" ")}]`;
  }
  if (v instanceof Date) return v.toISOString();
  if (isStringer(v)) return v.toString();
  const fields = Object.entries(v).filter(([, x]) => x !== undefined);
  return `{${fields.map(([k, x]) => `${k}:${goValue(x)}`).join(" ")}}`;
}

/** klog's writeStringValue: quoted (or bare) on one line, an indented block across lines. */
function writeValue(quote: boolean, s: string): string {
  if (!s.includes("\n")) return "=" + (quote ? goQuote(s) : s);
  const lines = s.split("\n");
  const last = lines.pop()!;
  const body = lines.map((l) => `\t${l}\n`).join("");
  return `=<\n${body}${last === "" ? " >" : `\t${last}\n >`}`;
}

/** ` key=value` as klog writes it. */
export function klogPair(key: string, v: unknown): string {
  const quoted = typeof v === "string" || v instanceof Error || (typeof v === "object" && v !== null && isStringer(v));
  return ` ${key}${writeValue(quoted, quoted ? (v instanceof Error ? v.message : String(v)) : goValue(v))}`;
}

/** A value as component-base's JSON logger writes it: errors as their message. */
export function jsonReplacer(_key: string, v: unknown): unknown {
  if (v instanceof Error) return v.message;
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Map) return Object.fromEntries(v);
  return v;
}
