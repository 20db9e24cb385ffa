/**
 * /logs/, the kubelet's system log handler (kubelet.go Run's logServer, kubelet_server_journal.go):
 * the files under /var/log as Go's http.FileServer serves them (a directory as an HTML listing, a
 * directory without its trailing slash redirected to it), and, with enableSystemLogQuery, the
 * node log query: `?query=<service>` reads journald through journalctl (the kubelet's
 * arguments: --utc --no-pager --output=short-precise, --since/--until, --pager-end --lines,
 * --unit, --grep, --boot), falling back to /var/log/<service>, <service>.log or
 * <service>/<service>.log when journald does not know the unit; `?query=<file>` serves one file.
 * Validation and error texts are the kubelet's. Unlike http.Dir, a symbolic link that leads out
 * of /var/log is not followed (404), so the endpoint reads nothing but the node's logs.
 */
import { spawn } from "node:child_process";
import { open, readdir, realpath, stat } from "node:fs/promises";
import { join, normalize, posix, relative } from "node:path";
import { Readable } from "node:stream";
import { textResponse } from "./respond.ts";

const NODE_LOG_DIR = "/var/log";
const MAX_TAIL_LINES = 100000;
const MAX_SERVICES = 4;
const MAX_SERVICE_LENGTH = 256;
const QUERY_DEADLINE_MS = 30_000;
const unsafeServiceChars = /[^a-zA-Z\-_.:0-9@]+/;

export interface NodeLogsOptions {
  /** enableSystemLogQuery: `?query=` and its options are read; otherwise only files are served. */
  query: boolean;
  /** /var/log (tests point it elsewhere). */
  logDir?: string;
  /** journalctl (tests point it elsewhere). */
  journalctl?: string;
}

interface LogQuery {
  services: string[];
  files: string[];
  since?: Date;
  until?: Date;
  tailLines?: number;
  boot?: number;
  pattern: string;
}

/** field.Error's text: `<path>: Invalid value: <value>: <detail>`. */
const goValue = (v: unknown): string => (Array.isArray(v) ? `[]string{${v.map((s) => JSON.stringify(s)).join(", ")}}` : typeof v === "string" ? JSON.stringify(v) : String(v));
const invalid = (path: string, value: unknown, detail: string) => `${path}: Invalid value: ${goValue(value)}: ${detail}`;
/** ErrorList.ToAggregate().Error(): one error as it is, several in brackets. */
const aggregate = (errs: string[]) => (errs.length === 1 ? errs[0]! : `[${errs.join(", ")}]`);

/** strconv.Atoi's error text for a bad integer. */
const atoi = (s: string): number | string => (/^[+-]?\d+$/.test(s) && Math.abs(Number(s)) < 2 ** 63 ? Number(s) : `strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** newNodeLogQuery: undefined when the request has no query parameters at all. */
function parseQuery(params: URLSearchParams): { query?: LogQuery; errors: string[] } {
  const errors: string[] = [];
  const q: LogQuery = { services: [], files: [], pattern: "" };
  const queries = params.getAll("query");
  for (const v of queries) {
    if (/[/\\]/.test(v)) q.files.push(v);
    else if (v.trim() !== "") q.services.push(v);
  }
  if (params.has("query") && q.files.length === 0 && q.services.length === 0) errors.push(invalid("query", queries, "may not be empty"));
  for (const [name, key] of [
    ["sinceTime", "since"],
    ["untilTime", "until"],
  ] as const) {
    const v = params.get(name) ?? "";
    if (v === "") continue;
    if (rfc3339.test(v) && !Number.isNaN(Date.parse(v))) q[key] = new Date(v);
    else errors.push(invalid(name, v, "invalid time format"));
  }
  for (const [name, key] of [
    ["boot", "boot"],
    ["tailLines", "tailLines"],
  ] as const) {
    const v = params.get(name) ?? "";
    if (v === "") continue;
    const n = atoi(v);
    if (typeof n === "number") q[key] = n;
    else errors.push(invalid(name, v, n));
  }
  q.pattern = params.get("pattern") ?? "";
  if (errors.length > 0) return { errors };
  const empty = q.services.length === 0 && q.files.length === 0 && !q.since && !q.until && q.tailLines === undefined && q.boot === undefined && q.pattern === "";
  return { query: empty ? undefined : q, errors };
}

const hasOptions = (q: LogQuery) => q.since !== undefined || q.until !== undefined || q.tailLines !== undefined || q.boot !== undefined || q.pattern !== "";

/** A path below the log dir that stays below it once symbolic links are resolved; undefined otherwise. */
async function inside(logDir: string, path: string): Promise<string | undefined> {
  const rel = normalize(posix.join("/", path)).slice(1);
  try {
    const root = await realpath(logDir);
    const real = await realpath(join(root, rel));
    const r = relative(root, real);
    return r.startsWith("..") ? undefined : real;
  } catch {
    return undefined;
  }
}

async function validate(q: LogQuery, logDir: string): Promise<string[]> {
  const errs: string[] = [];
  for (const s of q.services) {
    if (s.length > MAX_SERVICE_LENGTH) errs.push(invalid("query", s, `length must be less than ${MAX_SERVICE_LENGTH}`));
    else if (unsafeServiceChars.test(s)) errs.push(invalid("query", s, "input contains unsupported characters"));
  }
  if (q.services.length > MAX_SERVICES) errs.push(`query: Too many: ${q.services.length}: must have at most ${MAX_SERVICES} items`);
  if (q.files.length === 0 && q.services.length === 0) errs.push("query: Required value: cannot be empty with options");
  else if (q.files.length > 0 && q.services.length > 0) errs.push(invalid("query", `[${q.files.join(" ")}], [${q.services.join(" ")}]`, "cannot specify a file and service"));
  else if (q.files.length > 1) errs.push(invalid("query", q.files, "cannot specify more than one file"));
  else if (q.files.length === 1 && hasOptions(q)) errs.push(invalid("query", q.files, "cannot specify file with options"));
  else if (q.files.length === 1 && !(await inside(logDir, q.files[0]!))) errs.push(invalid("query", q.files, `stat ${q.files[0]}: no such file or directory`));
  if (q.since && q.until && q.since > q.until) errs.push(invalid("untilTime", q.until.toISOString(), "must be after `sinceTime`"));
  if (q.boot !== undefined && q.boot > 0) errs.push(invalid("boot", q.boot, "must be less than 1"));
  if (q.tailLines !== undefined && (q.tailLines < 0 || q.tailLines > MAX_TAIL_LINES)) errs.push(invalid("tailLines", q.tailLines, `must be between 0 and ${MAX_TAIL_LINES}, inclusive`));
  try {
    new RegExp(q.pattern);
  } catch (err) {
    errs.push(invalid("pattern", q.pattern, (err as Error).message));
  }
  return errs;
}

/** Go's "2006-1-2 15:4:5" layout, in UTC as journalctl is run with --utc. */
const journalTime = (d: Date) => `${d.getUTCFullYear()}-${d.getUTCMonth() + 1}-${d.getUTCDate()} ${d.getUTCHours()}:${d.getUTCMinutes()}:${d.getUTCSeconds()}`;

function journalctlArgs(q: LogQuery, services: string[]): string[] {
  const args = ["--utc", "--no-pager", "--output=short-precise"];
  if (q.since) args.push(`--since=${journalTime(q.since)}`);
  if (q.until) args.push(`--until=${journalTime(q.until)}`);
  if (q.tailLines !== undefined) args.push("--pager-end", `--lines=${q.tailLines}`);
  for (const s of services) if (s) args.push(`--unit=${s}`);
  if (q.pattern) args.push(`--grep=${q.pattern}`);
  if (q.boot !== undefined) args.push("--boot", String(q.boot));
  return args;
}

/** A command's stdout and stderr; undefined when it could not run or failed. */
function run(cmd: string, args: string[], signal: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { signal, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => out.push(b));
    child.on("error", () => resolve(undefined));
    child.on("close", (code) => resolve(code === 0 ? Buffer.concat(out).toString("utf8") : undefined));
  });
}

/** The query's output, as the kubelet's nodeLogQuery.Copy writes it (errors go into the body). */
async function copyQuery(q: LogQuery, logDir: string, journalctl: string, signal: AbortSignal): Promise<string> {
  if (q.files.length === 1) return copyFile(logDir, q.files[0]!);
  const units = await run(journalctl, ["--field", "_SYSTEMD_UNIT"], signal);
  const native = q.services.filter((s) => units?.includes(`${s}.service`));
  const fileLoggers = q.services.filter((s) => !native.includes(s));
  let out = "";
  if (native.length > 0) {
    const text = await run(journalctl, journalctlArgs(q, native), signal);
    out += text ?? (q.boot ? "" : "\nerror: journal output not available\n");
  }
  if (fileLoggers.length > 0 && hasOptions(q)) return `${out}\noptions present and query resolved to log files for [${fileLoggers.join(" ")}]\ntry without specifying options\n`;
  for (const s of fileLoggers) out += await heuristicCopy(logDir, s);
  return out;
}

async function copyFile(logDir: string, name: string): Promise<string> {
  const path = await inside(logDir, name);
  if (!path) throw Object.assign(new Error("not found"), { code: "ENOENT" });
  const f = await open(path, "r");
  try {
    if ((await f.stat()).isDirectory()) throw Object.assign(new Error("is a directory"), { code: "ENOENT" });
    return await f.readFile("utf8");
  } finally {
    await f.close();
  }
}

async function heuristicCopy(logDir: string, service: string): Promise<string> {
  for (const name of [service, `${service}.log`, `${service}/${service}.log`]) {
    try {
      return await copyFile(logDir, name);
    } catch (err) {
      if ((err as { code?: string }).code === "ENOENT") continue;
      return `\nerror getting log for ${service}: ${(err as Error).message}\n`;
    }
  }
  return `\nlog not found for ${service}\n`;
}

const htmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&#34;").replace(/'/g, "&#39;");

/** http.FileServer: a file's content, a directory's listing (redirected to its slash form first). */
async function serveFile(logDir: string, rel: string, signal: AbortSignal): Promise<Response> {
  const path = await inside(logDir, rel);
  const info = path ? await stat(path).catch(() => undefined) : undefined;
  if (!path || !info) return textResponse(404, "404 page not found\n");
  if (info.isDirectory()) {
    if (rel !== "" && !rel.endsWith("/")) return new Response(null, { status: 301, headers: { location: `${posix.basename(rel)}/` } });
    const entries = (await readdir(path, { withFileTypes: true })).map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
    const links = entries.map((n) => `<a href="${htmlEscape(encodeURI(n))}">${htmlEscape(n)}</a>\n`).join("");
    return new Response(`<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n${links}</pre>\n`, {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  }
  const f = await open(path, "r");
  const stream = Readable.toWeb(f.createReadStream({ signal })) as ReadableStream<Uint8Array>;
  return new Response(stream, { headers: { "content-type": "text/plain; charset=utf-8", "content-length": String(info.size) } });
}

export function nodeLogsHandler(opts: NodeLogsOptions): (url: URL) => Promise<Response> {
  const logDir = opts.logDir ?? NODE_LOG_DIR;
  const journalctl = opts.journalctl ?? "journalctl";
  return async (url) => {
    const rel = decodeURIComponent(url.pathname.replace(/^\/logs\/?/, ""));
    if (!opts.query) return serveFile(logDir, rel, AbortSignal.timeout(QUERY_DEADLINE_MS));
    const { query, errors } = parseQuery(url.searchParams);
    if (errors.length > 0) return textResponse(400, `${aggregate(errors)}\n`);
    if (!query) return serveFile(logDir, rel, AbortSignal.timeout(QUERY_DEADLINE_MS));
    if (rel !== "") return textResponse(406, "path not allowed in query mode\n");
    const errs = await validate(query, logDir);
    if (errs.length > 0) return textResponse(406, `${aggregate(errs)}\n`);
    const body = await copyQuery(query, logDir, journalctl, AbortSignal.timeout(QUERY_DEADLINE_MS));
    return new Response(body, { headers: { "content-type": "text/plain;charset=UTF-8" } });
  };
}
