/**
 * /healthz in the format of the kubelet's healthz handler (k8s.io/apiserver healthz):
 * "ok" when every check passes; with ?verbose, or on failure, one "[+]name ok" /
 * "[-]name failed: ..." line per check and a closing "healthz check passed|failed" line.
 * Unlike the kubelet, which writes "reason withheld" on a public port, bunlet writes the
 * reason: its read-only port binds loopback by default and the reason is what an operator needs.
 */

export interface HealthCheck {
  /** "syncloop", "pleg", "runtime", ... also the path /healthz/<name>. */
  name: string;
  check(): { ok: boolean; message?: string };
}

export interface HealthzResponse {
  status: 200 | 404 | 500;
  body: string;
  /** Names of the checks that failed, for the caller's log line. */
  failed: { name: string; message: string }[];
}

/** The ping check every kubelet healthz endpoint has: it passes if the server answers. */
export const pingCheck: HealthCheck = { name: "ping", check: () => ({ ok: true }) };

/** ping first, unless the caller already passed it. */
function withPing(checks: readonly HealthCheck[]): HealthCheck[] {
  return checks.some((c) => c.name === pingCheck.name) ? [...checks] : [pingCheck, ...checks];
}

function runOne(c: HealthCheck): { ok: boolean; message: string } {
  try {
    const r = c.check();
    return { ok: r.ok, message: r.message ?? (r.ok ? "" : "check failed") };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, "; ");
}

function detailLines(detail: Record<string, unknown>): string {
  return Object.entries(detail)
    .map(([k, v]) => `[i]${k}: ${typeof v === "string" ? v : JSON.stringify(v)}\n`)
    .join("");
}

export interface HealthzQuery {
  verbose: boolean;
  exclude: string[];
}

/** GET /healthz. ping is added first when `checks` lacks it. */
export function healthz(checks: readonly HealthCheck[], query: HealthzQuery, detail?: () => Record<string, unknown>): HealthzResponse {
  const all = withPing(checks);
  const names = new Set(all.map((c) => c.name));
  const excluded = new Set(query.exclude);
  let lines = "";
  const failed: HealthzResponse["failed"] = [];
  for (const c of all) {
    if (excluded.has(c.name)) {
      lines += `[+]${c.name} excluded: ok\n`;
      continue;
    }
    const r = runOne(c);
    if (r.ok) lines += `[+]${c.name} ok\n`;
    else {
      lines += `[-]${c.name} failed: ${oneLine(r.message)}\n`;
      failed.push({ name: c.name, message: r.message });
    }
  }
  const unmatched = query.exclude.filter((n) => !names.has(n));
  if (unmatched.length > 0) {
    lines += `warn: some health checks cannot be excluded: no matches for ${unmatched.map((n) => JSON.stringify(n)).join(",")}\n`;
  }
  if (query.verbose && detail) lines += detailLines(detail());
  if (failed.length > 0) return { status: 500, body: `${lines}healthz check failed\n`, failed };
  if (!query.verbose) return { status: 200, body: "ok", failed };
  return { status: 200, body: `${lines}healthz check passed\n`, failed };
}

/** GET /healthz/<name>: "ok", or 500 with the reason, or 404 for a check that does not exist. */
export function healthzOne(checks: readonly HealthCheck[], name: string): HealthzResponse {
  const c = withPing(checks).find((x) => x.name === name);
  if (c === undefined) return { status: 404, body: "404 page not found\n", failed: [] };
  const r = runOne(c);
  if (r.ok) return { status: 200, body: "ok", failed: [] };
  return { status: 500, body: `internal server error: ${oneLine(r.message)}\n`, failed: [{ name, message: r.message }] };
}
