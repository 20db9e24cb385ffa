import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryLogger } from "../../../src/lib/testing.ts";
import { apiRoutes } from "../../../src/server/index.ts";
import { createHandler } from "../../../src/server/handler.ts";

function fixture(query: boolean) {
  const root = mkdtempSync(join(tmpdir(), "node-logs-"));
  const logDir = join(root, "log");
  mkdirSync(join(logDir, "containerd"), { recursive: true });
  writeFileSync(join(logDir, "syslog"), "line 1\nline 2\n");
  writeFileSync(join(logDir, "containerd", "containerd.log"), "from a file\n");
  writeFileSync(join(root, "secret"), "not a log\n");
  symlinkSync(join(root, "secret"), join(logDir, "escape"));
  // A journalctl that knows the unit "bunlet" and prints its arguments.
  const journalctl = join(root, "journalctl");
  writeFileSync(journalctl, `#!/bin/sh\nif [ "$1" = "--field" ]; then echo bunlet.service; exit 0; fi\necho "journal: $*"\n`);
  chmodSync(journalctl, 0o755);
  const routes = apiRoutes({ configz: () => ({}), cri: {} as never, logs: { query, logDir, journalctl } });
  const handle = createHandler(routes, createMemoryLogger());
  return (path: string) => handle("GET", path);
}

describe("/logs/: the files under /var/log as http.FileServer serves them", () => {
  test("a directory lists its entries, a file is its content, a directory without its slash redirects", async () => {
    const get = fixture(false);
    const list = await get("/logs/");
    expect(list.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await list.text()).toBe('<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n<a href="containerd/">containerd/</a>\n<a href="escape">escape</a>\n<a href="syslog">syslog</a>\n</pre>\n');
    expect(await (await get("/logs/syslog")).text()).toBe("line 1\nline 2\n");
    const redirect = await get("/logs/containerd");
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get("location")).toBe("containerd/");
    expect((await get("/logs/nothing")).status).toBe(404);
  });

  test("nothing outside the log directory: .. is cleaned away and a symbolic link leading out is not followed", async () => {
    const get = fixture(false);
    expect((await get("/logs/escape")).status).toBe(404);
    expect((await get("/logs/../secret")).status).toBe(404);
    expect((await get("/logs/%2e%2e/secret")).status).toBe(404);
  });

  test("without enableSystemLogQuery the query is not read", async () => {
    const res = await fixture(false)("/logs/?query=bunlet");
    expect(await res.text()).toContain('<a href="syslog">');
  });
});

describe("/logs/?query=: the node log query", () => {
  test("a unit journald knows is read with journalctl, with the kubelet's arguments", async () => {
    const res = await fixture(true)("/logs/?query=bunlet&tailLines=5&sinceTime=2026-01-02T03:04:05Z&pattern=err");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain;charset=UTF-8");
    expect(await res.text()).toBe("journal: --utc --no-pager --output=short-precise --since=2026-1-2 3:4:5 --pager-end --lines=5 --unit=bunlet --grep=err\n");
  });

  test("a service journald does not know falls back to its file; an unknown one says so", async () => {
    const get = fixture(true);
    expect(await (await get("/logs/?query=containerd")).text()).toBe("from a file\n");
    expect(await (await get("/logs/?query=nosuch")).text()).toBe("\nlog not found for nosuch\n");
    expect(await (await get("/logs/?query=containerd&tailLines=3")).text()).toBe("\noptions present and query resolved to log files for [containerd]\ntry without specifying options\n");
    expect(await (await get("/logs/?query=/syslog")).text()).toBe("line 1\nline 2\n");
  });

  test("bad queries are refused with the kubelet's messages", async () => {
    const get = fixture(true);
    const cases: [string, number, string][] = [
      ["/logs/?query=", 400, 'query: Invalid value: []string{""}: may not be empty\n'],
      ["/logs/?query=a&tailLines=x", 400, 'tailLines: Invalid value: "x": strconv.Atoi: parsing "x": invalid syntax\n'],
      ["/logs/?query=a&sinceTime=yesterday", 400, 'sinceTime: Invalid value: "yesterday": invalid time format\n'],
      ["/logs/syslog?query=a", 406, "path not allowed in query mode\n"],
      ["/logs/?query=a;rm", 406, 'query: Invalid value: "a;rm": input contains unsupported characters\n'],
      ["/logs/?query=a&boot=1", 406, "boot: Invalid value: 1: must be less than 1\n"],
      ["/logs/?query=a&tailLines=100001", 406, "tailLines: Invalid value: 100001: must be between 0 and 100000, inclusive\n"],
      ["/logs/?query=a&query=b&query=c&query=d&query=e", 406, "query: Too many: 5: must have at most 4 items\n"],
      ["/logs/?tailLines=1", 406, "query: Required value: cannot be empty with options\n"],
      ["/logs/?query=/escape", 406, 'query: Invalid value: []string{"/escape"}: stat /escape: no such file or directory\n'],
    ];
    for (const [path, status, body] of cases) {
      const res = await get(path);
      expect([path, res.status, await res.text()]).toEqual([path, status, body]);
    }
  });
});

test("/logs/ with enableSystemLogHandler off answers the kubelet's 405", async () => {
  const handle = createHandler(apiRoutes({ configz: () => ({}), cri: {} as never, logs: false }), createMemoryLogger());
  const res = await handle("GET", "/logs/syslog");
  expect(res.status).toBe(405);
  expect(await res.text()).toBe("logs endpoint is disabled.\n");
});
