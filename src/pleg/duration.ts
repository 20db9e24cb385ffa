/**
 * Durations printed the way Go's time.Duration prints them ("3m1s", "10m0s", "1.5s", "300ms"),
 * so health messages read exactly like the kubelet's and alerts that match them keep working.
 */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  let rest = Math.abs(ms);
  if (rest < 1) return `${sign}${trimFraction(rest * 1000)}µs`;
  if (rest < 1000) return `${sign}${trimFraction(rest)}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = trimFraction(rest / 1000);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** Up to nanosecond precision, without trailing zeros. */
function trimFraction(value: number): string {
  return String(Number(value.toFixed(6)));
}
