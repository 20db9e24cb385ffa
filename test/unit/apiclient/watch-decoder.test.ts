import { describe, expect, test } from "bun:test";
import { WatchDecoder, WatchDecodeError } from "../../../src/apiclient/watch-decoder.ts";

const enc = new TextEncoder();
const ev = (type: string, name: string, rv: string) => JSON.stringify({ type, object: { kind: "Pod", metadata: { name, resourceVersion: rv } } }) + "\n";

describe("watch stream decoding", () => {
  test("events split across chunks at every byte come out whole and in order", () => {
    const stream = enc.encode(ev("ADDED", "a", "1") + ev("MODIFIED", "b", "2") + ev("DELETED", "a", "3"));
    for (let cut = 1; cut < stream.length; cut++) {
      const d = new WatchDecoder();
      const events = [...d.push(stream.slice(0, cut)), ...d.push(stream.slice(cut)), ...d.end()];
      expect(events.map((e) => `${e.type}:${(e.object as any).metadata.name}`)).toEqual(["ADDED:a", "MODIFIED:b", "DELETED:a"]);
    }
  });

  test("a multi-byte UTF-8 character split between chunks is kept intact", () => {
    const bytes = enc.encode(JSON.stringify({ type: "ADDED", object: { metadata: { name: "x", annotations: { note: "grüße ✓" } } } }) + "\n");
    const at = bytes.indexOf(0x9c); // inside the three bytes of ✓
    const d = new WatchDecoder();
    const events = [...d.push(bytes.slice(0, at)), ...d.push(bytes.slice(at))];
    expect((events[0].object as any).metadata.annotations.note).toBe("grüße ✓");
  });

  test("one chunk with several events, blank lines and a BOOKMARK", () => {
    const d = new WatchDecoder();
    const bookmark = JSON.stringify({ type: "BOOKMARK", object: { kind: "Pod", metadata: { resourceVersion: "9" } } });
    const events = d.push(enc.encode(`${ev("ADDED", "a", "1")}\n${bookmark}\n`));
    expect(events.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK"]);
  });

  test("an ERROR event carries the Status", () => {
    const d = new WatchDecoder();
    const status = { kind: "Status", status: "Failure", code: 410, reason: "Expired", message: "too old resource version: 1 (5)" };
    const [e] = d.push(enc.encode(JSON.stringify({ type: "ERROR", object: status }) + "\n"));
    expect(e.type).toBe("ERROR");
    expect(e.object).toEqual(status);
  });

  test("a last event without its newline still counts at the end of the stream", () => {
    const d = new WatchDecoder();
    expect(d.push(enc.encode(ev("ADDED", "a", "1").trimEnd()))).toEqual([]);
    expect(d.end().map((e) => e.type)).toEqual(["ADDED"]);
  });

  test("garbage, an unknown type or a missing object is a WatchDecodeError", () => {
    for (const line of ["<html>", '{"type":"CHANGED","object":{}}', '{"type":"ADDED"}', '["ADDED"]']) {
      const d = new WatchDecoder();
      expect(() => d.push(enc.encode(line + "\n"))).toThrow(WatchDecodeError);
    }
    const d = new WatchDecoder();
    d.push(enc.encode('{"type":"ADDED","obj'));
    expect(() => d.end()).toThrow(WatchDecodeError);
  });
});
