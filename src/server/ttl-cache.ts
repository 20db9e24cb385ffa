/**
 * A small cache of answers with a time to live per entry (TokenReview and SubjectAccessReview
 * answers, as the kubelet's webhook authenticator and authorizer cache them). Expired entries
 * are dropped when looked up; the size is capped so a flood of distinct tokens cannot grow it.
 */
import type { Clock } from "../lib/index.ts";

const MAX_ENTRIES = 4096;

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  constructor(private readonly clock: Clock) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (this.clock.now() >= e.expires) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    if (this.entries.size >= MAX_ENTRIES) {
      // Drop the oldest insertion (Map keeps insertion order).
      const first = this.entries.keys().next();
      if (!first.done) this.entries.delete(first.value);
    }
    this.entries.set(key, { value, expires: this.clock.now() + ttlMs });
  }
}
