/**
 * API timestamps: RFC 3339 in UTC with whole seconds ("2026-01-01T00:00:00Z"), as metav1.Time
 * serialises and the status manager normalises them. 0 (unset) has no timestamp.
 */
export function rfc3339(ms: number): string | undefined {
  return ms ? formatSeconds(ms) : undefined;
}

/** Truncates an RFC 3339 timestamp with fractions to whole seconds (other strings unchanged). */
export function normalizeTimestamp(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : formatSeconds(ms);
}

function formatSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}
