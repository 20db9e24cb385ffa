/**
 * The PLEG's state as one line an operator reads in /healthz?verbose: the mode, since when (UTC,
 * and how long ago), why, how often it relists, and, after a fallback, when the event stream is
 * tried again. Times are relative to `now` so the line reads the same under a FakeClock.
 */
import { formatGoDuration } from "../lib/index.ts";
import type { PlegStatus } from "./pleg.ts";

function utc(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

const wholeSeconds = (ms: number) => Math.max(0, Math.round(ms / 1000)) * 1000;

export function describePlegStatus(s: PlegStatus, now: number): string {
  const parts = [
    `${s.mode} mode since ${utc(s.since)} (${formatGoDuration(wholeSeconds(now - s.since))} ago)`,
    `reason: ${s.reason}`,
    `relisting every ${formatGoDuration(s.relistPeriodMs)}`,
  ];
  if (s.streamFailures > 0) parts.push(`${s.streamFailures} event stream${s.streamFailures === 1 ? "" : "s"} failed in a row`);
  if (s.nextProbeAt !== undefined) {
    parts.push(`next probe of the event stream in ${formatGoDuration(Math.ceil(Math.max(0, s.nextProbeAt - now) / 1000) * 1000)}`);
  }
  return parts.join("; ");
}
