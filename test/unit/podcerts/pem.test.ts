// encoding/pem as the kubelet reads trust bundles and certificate chains; the expected blocks were
// checked against Go's pem.Decode on the same inputs.
import { describe, expect, test } from "bun:test";
import { cleanCertificateChain, decodeAllPem, encodePem } from "../../../src/podcerts/pem.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("decodeAllPem (pem.Decode until no block is left)", () => {
  const cases: [string, string, string[]][] = [
    ["one block", "-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----\n", ["CERTIFICATE:010203"]],
    [
      "text around blocks is skipped and headers are dropped",
      "junk before\n-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: x\n\nAQID\n-----END CERTIFICATE-----\ntrailer\n-----BEGIN CERTIFICATE-----\nBAUG\n-----END CERTIFICATE-----",
      ["CERTIFICATE:010203", "CERTIFICATE:040506"],
    ],
    ["CRLF line ends, and spaces inside the base64", "-----BEGIN CERTIFICATE-----\r\nAQ ID\r\n-----END CERTIFICATE-----\r\n", ["CERTIFICATE:010203"]],
    ["a block that is not base64 is skipped, the next one read", "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\nBwgJ\n-----END CERTIFICATE-----\n", ["CERTIFICATE:070809"]],
    ["an END of another type ends nothing", "-----BEGIN CERTIFICATE-----\nAQID\n-----END OTHER-----\n", []],
    ["the last BEGIN before the first END wins", "-----BEGIN CERTIFICATE-----\n-----BEGIN X-----\nCgsM\n-----END X-----\n", ["X:0a0b0c"]],
    ["a BEGIN not at the start of a line is not one", " -----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----\n", []],
    ["text after the END line's dashes spoils the block", "-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE----- trailing\n", []],
    ["base64 without its padding is not read", "-----BEGIN CERTIFICATE-----\nAQI\n-----END CERTIFICATE-----\n", []],
  ];
  for (const [name, input, want] of cases) {
    test(name, () => {
      expect(decodeAllPem(input).map((b) => `${b.type}:${hex(b.bytes)}`)).toEqual(want);
    });
  }
});

describe("encodePem and cleanCertificateChain", () => {
  test("base64 in 64-character lines between the BEGIN and END lines, as pem.EncodeToMemory", () => {
    const bytes = Uint8Array.from({ length: 100 }, (_, i) => i);
    const pem = encodePem("CERTIFICATE", bytes);
    const lines = pem.split("\n");
    expect(lines[0]).toBe("-----BEGIN CERTIFICATE-----");
    expect(lines[1]).toHaveLength(64);
    expect(lines[2]).toHaveLength(64);
    expect(lines[3]).toHaveLength(136 - 128);
    expect(lines.slice(4)).toEqual(["-----END CERTIFICATE-----", ""]);
    expect(hex(decodeAllPem(pem)[0].bytes)).toBe(hex(bytes));
  });

  test("a chain loses its headers and the text between blocks; every block becomes a CERTIFICATE", () => {
    const chain = "leaf:\n-----BEGIN CERTIFICATE-----\nNote: x\n\nAQID\n-----END CERTIFICATE-----\nintermediate:\n-----BEGIN TRUSTED CERTIFICATE-----\nBAUG\n-----END TRUSTED CERTIFICATE-----\n";
    expect(new TextDecoder().decode(cleanCertificateChain(chain))).toBe(
      "-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\nBAUG\n-----END CERTIFICATE-----\n",
    );
  });
});
