import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, closeSync, ftruncateSync, mkdtempSync, openSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCriLine } from "../../../src/containerlogs/cri-format.ts";
import { findTailStart, readContainerLog, type FollowDeps, type LogOptions, type ReadAt } from "../../../src/containerlogs/read.ts";

const dir = mkdtempSync(join(tmpdir(), "bunlet-logs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (text: string) => {
  const p = join(dir, `${n++}.log`);
  writeFileSync(p, text);
  return p;
};

const T1 = "2026-01-01T00:00:01.000000001Z";
const T2 = "2026-01-01T00:00:02.5Z";
const T3 = "2026-01-01T00:00:03Z";
const sample = [
  `${T1} stdout F one`,
  `${T2} stderr P two-a `,
  `${T2} stderr F two-b`,
  `${T3} stdout F three`,
  `${T3} stdout F`,
  "",
].join("\n");

const base: LogOptions = { follow: false, timestamps: false };
const noFollow: FollowDeps = { wait: async () => {}, isRunning: async () => false };

async function read(path: string, opts: Partial<LogOptions>, deps: FollowDeps = noFollow): Promise<string> {
  let out = "";
  for await (const chunk of readContainerLog(path, { ...base, ...opts }, deps, new AbortController().signal)) out += new TextDecoder().decode(chunk);
  return out;
}

describe("a CRI log line", () => {
  const cases: [string, string, { stream: "stdout" | "stderr"; partial: boolean; log: string } | RegExp][] = [
    ["a full line gets its newline back", `${T1} stdout F hello world`, { stream: "stdout", partial: false, log: "hello world\n" }],
    ["a partial line does not", `${T1} stderr P hel`, { stream: "stderr", partial: true, log: "hel" }],
    ["tags after the first are ignored", `${T1} stdout F:x hi`, { stream: "stdout", partial: false, log: "hi\n" }],
    ["content keeps its own spaces", `${T1} stdout F  two  spaces `, { stream: "stdout", partial: false, log: " two  spaces \n" }],
    ["an empty full line", `${T1} stdout F`, { stream: "stdout", partial: false, log: "\n" }],
    ["no timestamp", "garbage", /timestamp is not found/],
    ["a bad timestamp", "yesterday stdout F x", /unexpected timestamp format "yesterday"/],
    ["an unknown stream", `${T1} stdin F x`, /unexpected stream type "stdin"/],
  ];
  for (const [name, line, want] of cases) {
    test(name, () => {
      const parse = () => parseCriLine(new TextEncoder().encode(line));
      if (want instanceof RegExp) expect(parse).toThrow(want);
      else {
        const m = parse();
        expect({ stream: m.stream, partial: m.partial, log: new TextDecoder().decode(m.log) }).toEqual(want);
      }
    });
  }
});

/** A ReadAt over bytes in memory that counts the bytes asked for. */
function memoryReader(data: Uint8Array): ReadAt & { bytesRead: number } {
  const reader = async (buf: Uint8Array, position: number) => {
    const part = data.subarray(position, position + buf.length);
    buf.set(part);
    reader.bytesRead += part.length;
    return part.length;
  };
  reader.bytesRead = 0;
  return reader;
}

describe("findTailStart counts lines from the end of the file, a block at a time", () => {
  const data = new TextEncoder().encode("a\nb\nc\n");
  const cases: [number, number][] = [[0, 6], [1, 4], [2, 2], [3, 0], [10, 0]];
  // Block sizes of 1 and 3 put line ends on and across every block boundary.
  for (const block of [1, 3, 8192]) {
    for (const [lines, want] of cases) {
      test(`${lines} lines start at ${want} (${block}-byte blocks)`, async () => expect(await findTailStart(memoryReader(data), data.length, lines, block)).toBe(want));
    }
    test(`a last line without a newline counts (${block}-byte blocks)`, async () => {
      const partial = new TextEncoder().encode("a\nb");
      expect(await findTailStart(memoryReader(partial), partial.length, 1, block)).toBe(2);
    });
  }
  test("fewer lines than asked start at 0; an empty file at 0", async () => {
    expect(await findTailStart(memoryReader(data), data.length, 4)).toBe(0);
    expect(await findTailStart(memoryReader(new Uint8Array()), 0, 10)).toBe(0);
  });
  test("blank lines count as lines", async () => {
    const blanks = new TextEncoder().encode("a\n\n\n");
    expect(await findTailStart(memoryReader(blanks), blanks.length, 2)).toBe(2);
  });
});

describe("tailLines on a 1 GiB log reads a few blocks, not the file", () => {
  const GiB = 2 ** 30;
  const lines = Array.from({ length: 20 }, (_, i) => `${T1} stdout F line ${i}\n`).join("");
  // A sparse file: 1 GiB of holes, then 20 CRI lines.
  const big = join(dir, "big.log");
  const fd = openSync(big, "w");
  ftruncateSync(fd, GiB);
  writeSync(fd, lines, GiB);
  closeSync(fd);
  const size = GiB + Buffer.byteLength(lines);

  test("findTailStart reads one 8 KiB block for 10 lines", async () => {
    const handle = openSync(big, "r");
    let bytesRead = 0;
    const readAt: ReadAt = async (buf, position) => {
      const n = readSync(handle, buf, 0, buf.length, position);
      bytesRead += n;
      return n;
    };
    try {
      expect(await findTailStart(readAt, size, 10)).toBe(size - Buffer.byteLength(lines.split("\n").slice(10).join("\n")));
    } finally {
      closeSync(handle);
    }
    expect(bytesRead).toBe(8 * 1024);
  });

  test("readContainerLog with tailLines=10 answers the last 10 lines quickly, without reading the file into memory", async () => {
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const out = await read(big, { tailLines: 10 });
    expect(out).toBe(Array.from({ length: 10 }, (_, i) => `line ${i + 10}\n`).join(""));
    // Reading 1 GiB of holes takes seconds and the whole file as memory; a few blocks take ms.
    expect(performance.now() - started).toBeLessThan(500);
    expect((process.memoryUsage().rss - rssBefore) / 2 ** 20).toBeLessThan(64);
  });
});

describe("reading a log file as the kubelet's ReadLogs", () => {
  const path = file(sample);
  const cases: [string, Partial<LogOptions>, string][] = [
    ["everything, partial lines joined", {}, "one\ntwo-a two-b\nthree\n\n"],
    ["tailLines counts lines of the file (a partial entry is a line)", { tailLines: 3 }, "two-b\nthree\n\n"],
    ["tailLines=0 is nothing", { tailLines: 0 }, ""],
    ["sinceTime drops older entries", { sinceMs: Date.parse(T2) }, "two-a two-b\nthree\n\n"],
    ["stdout only", { stream: "stdout" }, "one\nthree\n\n"],
    ["stderr only", { stream: "stderr" }, "two-a two-b\n"],
    ["timestamps prefix every entry with its time as written", { timestamps: true, stream: "stderr" }, `${T2} two-a ${T2} two-b\n`],
    ["limitBytes cuts the output", { limitBytes: 6 }, "one\ntw"],
  ];
  for (const [name, opts, want] of cases) test(name, async () => expect(await read(path, opts)).toBe(want));

  test("lines not in the CRI format are skipped and reported", async () => {
    const bad: string[] = [];
    const p = file(`${T1} stdout F ok\nnot a cri line\n${T1} stdout F ok2\n`);
    expect(await read(p, {}, { ...noFollow, onBadLine: (e) => bad.push(e.message) })).toBe("ok\nok2\n");
    expect(bad).toEqual(['unexpected timestamp format "not"']);
  });

  test("a missing file is an error", async () => {
    await expect(read(join(dir, "missing.log"), {})).rejects.toThrow(/ENOENT|no such file/);
  });
});

describe("following", () => {
  test("new lines are read as they come; the read ends once the container stopped and nothing is left", async () => {
    const path = file(`${T1} stdout F first\n`);
    const steps = [
      () => appendFileSync(path, `${T2} stdout P sec`),
      () => appendFileSync(path, `ond-half\n${T2} stdout F`),
      () => appendFileSync(path, ` end\n`),
    ];
    let running = true;
    const deps: FollowDeps = {
      wait: async () => {
        const step = steps.shift();
        if (step) step();
        else running = false;
      },
      isRunning: async () => running,
    };
    // "second-half" is a partial entry: the full entry after it ends its line.
    expect(await read(path, { follow: true }, deps)).toBe("first\nsecond-halfend\n");
  });

  test("a rotated file (renamed, a new one in its place) is read from its start", async () => {
    const path = file(`${T1} stdout F before\n`);
    let rotated = false;
    let running = true;
    const deps: FollowDeps = {
      wait: async () => {
        if (!rotated) {
          appendFileSync(path, `${T2} stdout F last-of-old\n`);
          renameSync(path, `${path}.20260101-000002`);
          writeFileSync(path, `${T3} stdout F after\n`);
          rotated = true;
        } else running = false;
      },
      isRunning: async () => running,
    };
    expect(await read(path, { follow: true }, deps)).toBe("before\nlast-of-old\nafter\n");
  });

  test("a file truncated in place is read again from its start", async () => {
    const path = file(`${T1} stdout F long line before the truncation\n`);
    let done = false;
    const deps: FollowDeps = {
      wait: async () => {
        if (!done) writeFileSync(path, `${T2} stdout F new\n`);
        done = true;
      },
      isRunning: async () => !done || false,
    };
    expect(await read(path, { follow: true }, deps)).toBe("long line before the truncation\nnew\n");
  });

  test("an abort stops the wait and ends the read", async () => {
    const path = file(`${T1} stdout F x\n`);
    const ac = new AbortController();
    const deps: FollowDeps = {
      wait: (signal) => {
        ac.abort();
        return Promise.reject(signal.reason);
      },
      isRunning: async () => true,
    };
    let out = "";
    for await (const c of readContainerLog(path, { ...base, follow: true }, deps, ac.signal)) out += new TextDecoder().decode(c);
    expect(out).toBe("x\n");
  });
});
