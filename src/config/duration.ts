/**
 * Go duration strings ("1h2m3.5s", "300ms", "0"), as the kubelet's flags and metav1.Duration
 * fields accept them. Parsed exactly in integer nanoseconds (as Go does) and returned in
 * milliseconds, bunlet's time unit. Unlike Go, a negative duration is rejected: no bunlet
 * setting means anything when negative.
 */

const nanosPerUnit: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  "µs": 1_000n, // U+00B5 micro sign
  "μs": 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const maxNanos = (1n << 63n) - 1n;

/** Thrown for a string that is not a valid non-negative Go duration; the message quotes it. */
export class DurationError extends Error {
  override readonly name = "DurationError";
}

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

export function parseDuration(input: string): number {
  const quoted = JSON.stringify(input);
  let s = input;
  if (s.startsWith("-") || s.startsWith("+")) {
    if (s.startsWith("-") && s !== "-0") throw new DurationError(`negative duration ${quoted}`);
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") throw new DurationError(`invalid duration ${quoted}`);

  let total = 0n;
  let i = 0;
  while (i < s.length) {
    if (!isDigit(s[i]) && s[i] !== ".") throw new DurationError(`invalid duration ${quoted}`);
    const intStart = i;
    while (isDigit(s[i])) i++;
    const intPart = s.slice(intStart, i);
    let fracPart = "";
    if (s[i] === ".") {
      const fracStart = ++i;
      while (isDigit(s[i])) i++;
      fracPart = s.slice(fracStart, i);
    }
    if (intPart === "" && fracPart === "") throw new DurationError(`invalid duration ${quoted}`);

    const unitStart = i;
    while (i < s.length && !isDigit(s[i]) && s[i] !== ".") i++;
    const unit = s.slice(unitStart, i);
    if (unit === "") throw new DurationError(`missing unit in duration ${quoted}`);
    const scale = nanosPerUnit[unit];
    if (scale === undefined) throw new DurationError(`unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);

    // Digits past nanosecond precision are truncated, as in Go.
    let nanos = BigInt(intPart || "0") * scale;
    if (fracPart !== "") nanos += (BigInt(fracPart) * scale) / 10n ** BigInt(fracPart.length);
    total += nanos;
    if (total > maxNanos) throw new DurationError(`invalid duration ${quoted}`);
  }
  return Number(total) / 1e6;
}
