/**
 * The time a log line carries: wall-clock milliseconds since the epoch with microsecond
 * precision, like Go's time.Now() in klog's header and component-base's `ts`. Date.now() has only
 * whole milliseconds, so the fraction comes from the monotonic clock (performance.now()), anchored
 * to the wall clock. Each reading is kept inside the wall clock's current millisecond: when the two
 * clocks drift apart (an NTP step, a suspend) the anchor moves, so a line is never more than a
 * millisecond away from Date.now(). Rounded to whole microseconds, so the text header and the JSON
 * `ts` of the same instant show the same digits.
 */
export function createLogTime(wall: () => number = Date.now, monotonic: () => number = () => performance.now()): () => number {
  let offset = wall() - monotonic();
  return () => {
    const mono = monotonic();
    const ms = wall();
    const t = Math.min(Math.max(offset + mono, ms), ms + 0.999);
    offset = t - mono;
    return Math.round(t * 1000) / 1000;
  };
}
