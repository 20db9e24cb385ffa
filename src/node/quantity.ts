/**
 * The two resource.Quantity forms node status uses, canonical as the apiserver writes them:
 * BinarySI for bytes (the largest of Ki, Mi, Gi, Ti, Pi, Ei that divides the value exactly, else
 * a plain integer) and plain decimal integers for counts (cpu cores, pods).
 */
const binarySuffixes = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

export function binarySI(bytes: number): string {
  const n = Math.max(0, Math.floor(bytes));
  if (n === 0) return "0";
  let value = n;
  let suffix = "";
  for (const s of binarySuffixes) {
    if (value % 1024 !== 0) break;
    value /= 1024;
    suffix = s;
  }
  return `${value}${suffix}`;
}

export function decimalCount(n: number): string {
  return String(Math.max(0, Math.floor(n)));
}
