/**
 * Durations printed the way Go's time.Duration.String() prints them ("3m1s", "10m0s", "1.5s",
 * "300ms", "250µs"), so flag help, health messages and backoff messages read exactly like the
 * kubelet's, and alerts that match them keep working. The input is milliseconds (bunlet's unit);
 * the output keeps up to nanosecond precision without trailing zeros.
 */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  let rest = Math.abs(ms);
  if (rest < 0.001) return `${sign}${trim(rest * 1e6, 0)}ns`;
  if (rest < 1) return `${sign}${trim(rest * 1000, 3)}µs`;
  if (rest < 1000) return `${sign}${trim(rest, 6)}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = trim(rest / 1000, 9);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

function trim(value: number, digits: number): string {
  return String(Number(value.toFixed(digits)));
}
