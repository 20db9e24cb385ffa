// clusterTrustBundle projections: which bundles a name or a signer with a label selector picks
// (the conformance suite's set of ten bundles), and how their anchors are normalised.
import { describe, expect, test } from "bun:test";
import type { LabelSelector } from "../../../src/api/index.ts";
import { decodeAllPem, encodePem } from "../../../src/podcerts/pem.ts";
import { labelSelectorAsSelector, selectorMatches, selectorString } from "../../../src/podcerts/selector.ts";
import { bundlesOfSigner, normalizeTrustAnchors, type ClusterTrustBundle } from "../../../src/podcerts/trust-anchors.ts";

const cert = (n: number) => encodePem("CERTIFICATE", Uint8Array.of(0x30, n, n, n));
const bundle = (name: string, signerName: string, trustBundle: string, labels?: Record<string, string>): ClusterTrustBundle => ({ metadata: { name, labels }, spec: { signerName, trustBundle } });
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("bundlesOfSigner (GetTrustAnchorsBySigner's choice)", () => {
  // projected_clustertrustbundle.go's initCTBData: signer-one 0-3 and 6-9, no signer 4, signer-two 5.
  const one = "test.test/signer-one";
  const all: ClusterTrustBundle[] = [
    bundle("test.test:signer-one:0", one, cert(0)),
    ...[1, 2, 3].map((i) => bundle(`test.test:signer-one:${i}`, one, cert(i), { "signer.alive": "true" })),
    bundle("test.test.signer-one.4", "", cert(4), { "signer.alive": "true" }),
    bundle("test.test:signer-two:5", "test.test/signer-two", cert(5), { "signer.alive": "true" }),
    ...[6, 7].map((i) => bundle(`test.test:signer-one:${i}`, one, cert(i), { "signer.alive": "false" })),
    ...[8, 9].map((i) => bundle(`test.test:signer-one:${i}`, one, cert(i))),
  ];
  const cases: [string, string, LabelSelector | undefined, number[]][] = [
    ["the signer's bundles with the matching label", one, { matchLabels: { "signer.alive": "true" } }, [1, 2, 3]],
    ["no selector matches nothing", one, undefined, []],
    ["a selector that matches nothing", one, { matchLabels: { thismatches: "nothing" } }, []],
    ["an empty selector matches every bundle of the signer", one, {}, [0, 1, 2, 3, 6, 7, 8, 9]],
    ["the other label value", one, { matchLabels: { "signer.alive": "false" } }, [6, 7]],
    ["In", one, { matchExpressions: [{ key: "signer.alive", operator: "In", values: ["true", "false"] }] }, [1, 2, 3, 6, 7]],
    ["NotIn also takes bundles without the label", one, { matchExpressions: [{ key: "signer.alive", operator: "NotIn", values: ["true"] }] }, [0, 6, 7, 8, 9]],
    ["Exists", one, { matchExpressions: [{ key: "signer.alive", operator: "Exists" }] }, [1, 2, 3, 6, 7]],
    ["DoesNotExist", one, { matchExpressions: [{ key: "signer.alive", operator: "DoesNotExist" }] }, [0, 8, 9]],
    ["a bundle without a signer is never picked by signer", "", {}, [4]],
  ];
  for (const [name, signer, selector, want] of cases) {
    test(name, () => {
      const got = bundlesOfSigner(all, signer, selector).map((b) => Number(b.metadata?.name?.split(/[:.]/).at(-1)));
      expect(got).toEqual(want);
    });
  }

  test("a bad selector fails with the apimachinery's words", () => {
    expect(() => bundlesOfSigner(all, one, { matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] })).toThrow('while parsing label selector: "Gt" is not a valid label selector operator');
    expect(() => bundlesOfSigner(all, one, { matchExpressions: [{ key: "a", operator: "In", values: [] }] })).toThrow(
      "while parsing label selector: values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
    );
    expect(() => bundlesOfSigner(all, one, { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] })).toThrow('values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist');
  });
});

describe("label selectors", () => {
  test("String() sorts the requirements by key, as labels.Selector does", () => {
    const s = labelSelectorAsSelector({ matchLabels: { b: "2" }, matchExpressions: [{ key: "a", operator: "NotIn", values: ["y", "x"] }, { key: "c", operator: "DoesNotExist" }] });
    expect(selectorString(s)).toBe("a notin (x,y),b=2,!c");
    expect(selectorMatches(s, { b: "2", a: "z" })).toBe(true);
    expect(selectorMatches(s, { b: "2", a: "x" })).toBe(false);
  });
});

describe("normalizeTrustAnchors", () => {
  test("every certificate once, headers and text dropped, each a bare CERTIFICATE block", () => {
    const withHeader = `comment\n-----BEGIN CERTIFICATE-----\nNote: hello\n\n${cert(1).split("\n")[1]}\n-----END CERTIFICATE-----\n`;
    const out = text(normalizeTrustAnchors([bundle("a", "", withHeader + cert(2)), bundle("b", "", cert(2) + cert(3))], "seed"));
    const blocks = decodeAllPem(out);
    expect(blocks.map((b) => b.bytes[1]).sort()).toEqual([1, 2, 3]);
    expect(out).not.toContain("Note");
    expect(out).not.toContain("comment");
    expect(out.split("-----BEGIN CERTIFICATE-----")).toHaveLength(4);
  });

  test("the order is fixed for a seed whatever the bundles' order, and a new seed may change it", () => {
    const bundles = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => bundle(`b${i}`, "", cert(i)));
    const first = text(normalizeTrustAnchors(bundles, "run-1"));
    expect(text(normalizeTrustAnchors([...bundles].reverse(), "run-1"))).toBe(first);
    const orders = new Set(["run-2", "run-3", "run-4", "run-5"].map((seed) => text(normalizeTrustAnchors(bundles, seed))));
    expect(orders.size).toBeGreaterThan(1);
  });

  test("no bundles, or bundles without a PEM block, write an empty file", () => {
    expect(normalizeTrustAnchors([], "s")).toHaveLength(0);
    expect(normalizeTrustAnchors([bundle("a", "", "not pem")], "s")).toHaveLength(0);
  });
});
