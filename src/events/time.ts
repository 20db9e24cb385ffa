/** metav1.Time on the wire: RFC 3339 in UTC with whole seconds. */
export function formatEventTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}
