/**
 * Resource quantities exactly as apimachinery's resource.Quantity (pkg/api/resource): the same
 * grammar, the same errors, the same rounding and the same canonical String(), computed with
 * bigint, never floats. A quantity is an exact decimal `unscaled × 10^exponent` plus the format
 * its text used (DecimalSI "1k", BinarySI "1Ki", DecimalExponent "1e3"), which String() keeps.
 *
 * Where Go keeps a parsed string as its canonical form without re-rendering it ("+1k", "01Gi",
 * "1E3"), this does too, because the kubelet and the apiserver show and compare that string.
 * Parsing rounds anything finer than a nano away from zero and caps a BinarySI magnitude at
 * 2^63-1, as Go does. The int64 accessors (value, milliValue) round up away from zero as Go's
 * int64 path does; where Go silently overflows an int64 they saturate at its bounds instead.
 */

export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

const splitRE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

/** Go's three parse errors, with their messages. */
const messages = {
  FormatWrong: `quantities must match the regular expression '${splitRE}'`,
  Numeric: "unable to parse numeric part of quantity",
  Suffix: "unable to parse quantity's suffix",
} as const;

export class QuantityError extends Error {
  constructor(readonly code: keyof typeof messages) {
    super(messages[code]);
    this.name = "QuantityError";
  }
}

const maxInt64 = (1n << 63n) - 1n;
const minInt64 = -(1n << 63n);
const nano = -9;

const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalByExponent = new Map(Object.entries(decimalSuffixes).map(([s, e]) => [e, s]));
const binaryByExponent = new Map(Object.entries(binarySuffixes).map(([s, e]) => [e, s]));

const abs = (n: bigint) => (n < 0n ? -n : n);
const digits = (n: bigint) => abs(n).toString().length;
const pow10 = (n: number) => 10n ** BigInt(n);
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
/** Go's unicode.IsSpace: JavaScript's \s without U+FEFF, plus U+0085. */
const goSpaceAtEnds = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
const clampInt64 = (n: bigint) => (n > maxInt64 ? maxInt64 : n < minInt64 ? minInt64 : n);

/** n / 10^drop rounded away from zero (inf.RoundUp), for drop > 0. */
function divideUp(n: bigint, drop: number): bigint {
  const sign = n < 0n ? -1n : 1n;
  if (drop > digits(n)) return sign;
  const d = pow10(drop);
  const q = abs(n) / d;
  return sign * (abs(n) % d === 0n ? q : q + 1n);
}

export class Quantity {
  /** The value is unscaled × 10^exponent. */
  readonly #unscaled: bigint;
  readonly #exponent: number;
  readonly format: QuantityFormat;
  /** The parsed text when Go keeps it as the canonical form. */
  readonly #text: string | undefined;

  private constructor(unscaled: bigint, exponent: number, format: QuantityFormat, text?: string) {
    this.#unscaled = unscaled;
    this.#exponent = exponent;
    this.format = format;
    this.#text = text;
  }

  /** resource.NewQuantity: an integer value. */
  static of(value: bigint | number, format: QuantityFormat): Quantity {
    return new Quantity(BigInt(value), 0, format);
  }

  /** resource.NewMilliQuantity: value thousandths. */
  static ofMilli(value: bigint | number, format: QuantityFormat): Quantity {
    return new Quantity(BigInt(value), -3, format);
  }

  /** The zero value of an absent resource (ResourceList.Name on a missing key). */
  static readonly zero = new Quantity(0n, 0, "DecimalSI");

  /** resource.ParseQuantity; throws QuantityError. */
  static parse(text: string): Quantity {
    const a = parse(text);
    return new Quantity(a.unscaled, a.exponent, a.format, a.text);
  }

  /**
   * A quantity as it arrives in JSON (Quantity.UnmarshalJSON): a string, or a number's text,
   * with surrounding white space (Go's unicode.IsSpace) ignored.
   */
  static fromJSON(value: string | number): Quantity {
    const text = typeof value === "number" ? String(value) : value;
    return Quantity.parse(text.replace(goSpaceAtEnds, ""));
  }

  sign(): -1 | 0 | 1 {
    return this.#unscaled === 0n ? 0 : this.#unscaled < 0n ? -1 : 1;
  }

  isZero(): boolean {
    return this.#unscaled === 0n;
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other` (exact). */
  cmp(other: Quantity): -1 | 0 | 1 {
    const a = this.sign();
    const b = other.sign();
    if (a !== b) return a < b ? -1 : 1;
    if (a === 0) return 0;
    const magnitude = compareMagnitude(this.#unscaled, this.#exponent, other.#unscaled, other.#exponent);
    return a > 0 || magnitude === 0 ? magnitude : magnitude === 1 ? -1 : 1;
  }

  equal(other: Quantity): boolean {
    return this.cmp(other) === 0;
  }

  /** ceil(q / 10^scale), away from zero, saturated to int64 (ScaledValue). */
  scaledValue(scale: number): bigint {
    const u = this.#unscaled;
    if (u === 0n) return 0n;
    const shift = this.#exponent - scale;
    if (shift < 0) return clampInt64(divideUp(u, -shift));
    if (digits(u) + shift > 19) return u < 0n ? minInt64 : maxInt64;
    return clampInt64(u * pow10(shift));
  }

  /** The value rounded up to an integer (Value). */
  value(): bigint {
    return this.scaledValue(0);
  }

  /** ceil(q × 1000) (MilliValue). */
  milliValue(): bigint {
    return this.scaledValue(-3);
  }

  /** The canonical form (String, and what MarshalJSON writes). */
  toString(): string {
    if (this.#text !== undefined) return this.#text;
    if (this.#unscaled === 0n) return "0";
    if (this.format !== "BinarySI") return this.#decimalString(this.format);
    // BinarySI only for whole numbers of at least 1024 in magnitude; DecimalSI otherwise.
    const small = this.cmp(Quantity.of(-1024, "DecimalSI")) > 0 && this.cmp(Quantity.of(1024, "DecimalSI")) < 0;
    const integer = this.#integerValue();
    return small || integer === undefined ? this.#decimalString("DecimalSI") : base1024(integer);
  }

  /** The exact integer value, or undefined when there is a fraction. */
  #integerValue(): bigint | undefined {
    if (this.#exponent >= 0) return this.#unscaled * pow10(this.#exponent);
    const d = pow10(-this.#exponent);
    return this.#unscaled % d === 0n ? this.#unscaled / d : undefined;
  }

  /** AsCanonicalBytes: no trailing zeros in the mantissa, an exponent that is a multiple of 3. */
  #decimalString(format: "DecimalSI" | "DecimalExponent"): string {
    let mantissa = this.#unscaled;
    let exponent = this.#exponent;
    while (mantissa % 10n === 0n) {
      mantissa /= 10n;
      exponent++;
    }
    while (exponent % 3 !== 0) {
      mantissa *= 10n;
      exponent--;
    }
    const si = format === "DecimalSI" ? decimalByExponent.get(exponent) : undefined;
    // DecimalSI has no suffix past E (10^18): an exponent then, as apimachinery after 1.37 does
    // (1.37 drops the exponent and prints "1000E" as "1", which would change the value here).
    const suffix = si ?? (exponent === 0 ? "" : `e${exponent}`);
    return `${mantissa}${suffix}`;
  }
}

function base1024(value: bigint): string {
  let amount = value;
  let times = 0;
  while (amount !== 0n && amount % 1024n === 0n) {
    amount /= 1024n;
    times++;
  }
  // Go finds no suffix past Ei (2^60) and prints the bare mantissa; only a sum can get there.
  return `${amount}${binaryByExponent.get(times * 10) ?? ""}`;
}

/** Compares |a|·10^ae with |b|·10^be for non-zero a and b without building huge powers. */
function compareMagnitude(a: bigint, ae: number, b: bigint, be: number): -1 | 0 | 1 {
  const ma = digits(a) + ae;
  const mb = digits(b) + be;
  if (ma !== mb) return ma < mb ? -1 : 1;
  const e = Math.min(ae, be);
  const x = abs(a) * pow10(ae - e);
  const y = abs(b) * pow10(be - e);
  return x === y ? 0 : x < y ? -1 : 1;
}

interface Parts {
  positive: boolean;
  /** The signed number as written, without its suffix ("-1.5"). */
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** parseQuantityString: Go's scanner, character for character. */
function scan(str: string): Parts {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === "-") {
    positive = false;
    pos++;
  } else if (str[0] === "+") pos++;
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  let num = str.slice(pos, i);
  if (i >= end) return { positive, value: str, num, denom: "", suffix: "" };
  pos = i;
  if (num === "") num = "0";
  let denom = "";
  if (str[pos] === ".") {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: "" };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && "eEinumkKMGTP".includes(str[pos])) pos++;
  if (pos < end && (str[pos] === "-" || str[pos] === "+")) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) throw new QuantityError("FormatWrong");
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

function interpret(suffix: string): Suffix | undefined {
  if (Object.hasOwn(decimalSuffixes, suffix)) return { base: 10, exponent: decimalSuffixes[suffix], format: "DecimalSI" };
  if (Object.hasOwn(binarySuffixes, suffix)) return { base: 2, exponent: binarySuffixes[suffix], format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E") && /^[+-]?[0-9]+$/.test(suffix.slice(1))) {
    const parsed = BigInt(suffix.slice(1));
    if (parsed > maxInt64 || parsed < minInt64) return undefined;
    // Go parses an int64 and keeps its low 32 bits.
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: "DecimalExponent" };
  }
  return undefined;
}

interface Amount {
  unscaled: bigint;
  exponent: number;
  format: QuantityFormat;
  text?: string;
}

function parse(str: string): Amount {
  if (str === "") throw new QuantityError("FormatWrong");
  if (str === "0") return { unscaled: 0n, exponent: 0, format: "DecimalSI", text: str };
  const { positive, value, num, denom, suffix } = scan(str);
  const s = interpret(suffix);
  if (!s) throw new QuantityError("Suffix");
  return fastPath(str, positive, num, denom, s) ?? decimalPath(value, s);
}

/**
 * Go's int64Amount path: up to 18 significant digits at a scale of at least nano. It is the one
 * place Go may keep the input text as the canonical string.
 */
function fastPath(str: string, positive: boolean, num: string, denom: string, s: Suffix): Amount | undefined {
  let scale = 0;
  let mantissa = 1n;
  let precision: number;
  if (s.format === "BinarySI") {
    if (denom !== "") return undefined;
    mantissa = 1n << BigInt(s.exponent);
    precision = 15 - num.length - (s.exponent * 3) / 10 - 1;
  } else {
    scale = s.exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision < 0) return undefined;
  scale -= denom.length;
  if (scale < nano) return undefined;
  const shifted = num + denom;
  const magnitude = BigInt(shifted);
  const result = magnitude * mantissa;
  if (result > maxInt64) return undefined;
  const canonical =
    s.format === "BinarySI"
      ? s.exponent % 10 === 0 && (magnitude & 7n) !== 0n
      : scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
  return { unscaled: positive ? result : -result, exponent: scale, format: s.format, text: canonical ? str : undefined };
}

/** Go's inf.Dec path: exact, then rounded up to nano and, for BinarySI, capped at 2^63-1. */
function decimalPath(value: string, s: Suffix): Amount {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (!m || m[2] + (m[3] ?? "") === "") throw new QuantityError("Numeric");
  const fraction = m[3] ?? "";
  let unscaled = BigInt(m[2] + fraction);
  let exponent = -fraction.length;
  if (s.base === 10) {
    // inf.Dec keeps the scale in an int32: Go's sum wraps around.
    exponent = -Number(BigInt.asIntN(32, BigInt(fraction.length) + BigInt.asIntN(32, BigInt(-s.exponent))));
  } else {
    unscaled *= 1n << BigInt(s.exponent);
  }
  if (unscaled !== 0n && exponent < nano) {
    unscaled = divideUp(unscaled, nano - exponent);
    exponent = nano;
  }
  let format = s.format;
  if (format === "BinarySI") {
    if (compareMagnitude(unscaled, exponent, maxInt64, 0) > 0) {
      unscaled = maxInt64;
      exponent = 0;
    }
    if (unscaled !== 0n && compareMagnitude(unscaled, exponent, 1n, 0) < 0) format = "DecimalSI";
  }
  if (m[1] === "-") unscaled = -unscaled;
  return { unscaled, exponent, format };
}

/** A resource of a ResourceList (ResourceList.Name): zero when it is absent. */
export function resourceQuantity(list: Readonly<Record<string, string | number>> | undefined, name: string): Quantity {
  const value = list?.[name];
  return value === undefined ? Quantity.zero : Quantity.fromJSON(value);
}
