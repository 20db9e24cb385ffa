import { expect, test } from "bun:test";
import { diffFamilies, formatReference, parseFamilies, parseReference } from "../../../scripts/lib/metric-families.ts";

const kubelet = `# HELP a_total A.
# TYPE a_total counter
a_total{x="1",y="2"} 3
# HELP h Hist.
# TYPE h histogram
h_bucket{op="a",le="1"} 1
h_bucket{op="a",le="+Inf"} 1
h_sum{op="a"} 0.5
h_count{op="a"} 1
# TYPE only_kubelet gauge
only_kubelet 1
# TYPE typed gauge
typed 1
`;
const bunlet = `# TYPE a_total counter
a_total{x="1"} 3
# TYPE h histogram
h_bucket{op="a",le="+Inf"} 1
h_sum{op="a"} 0.5
h_count{op="a"} 1
# TYPE typed counter
typed 1
# TYPE bunlet_own gauge
bunlet_own{k="v"} 1
`;

test("families with their types and label names (le left out), and the diff of two agents", () => {
  const up = parseFamilies(kubelet);
  expect(up.get("h")).toEqual({ type: "histogram", labels: ["op"], help: "Hist." });
  expect(up.get("a_total")).toEqual({ type: "counter", labels: ["x", "y"], help: "A." });
  expect(diffFamilies(up, parseFamilies(bunlet))).toEqual({
    missing: ["only_kubelet gauge{}"],
    different: ["a_total counter{x,y} ≠ a_total counter{x}", "typed gauge{} ≠ typed counter{}"],
    extra: ["bunlet_own gauge{k}"],
  });
});

test("help texts are compared where both have one, and the reference list reads back what it wrote", () => {
  const up = parseFamilies("# HELP g [ALPHA] Line one\\nand a \\\\ backslash.\n# TYPE g gauge\ng{k=\"v\"} 1\n");
  expect(up.get("g")).toEqual({ type: "gauge", labels: ["k"], help: "[ALPHA] Line one\nand a \\ backslash." });
  expect(diffFamilies(up, parseFamilies("# HELP g Other.\n# TYPE g gauge\ng{k=\"v\"} 1\n")).different).toEqual([`g help "[ALPHA] Line one\\nand a \\\\ backslash." ≠ "Other."`]);
  const ref = new Map([["/metrics", up]]);
  expect(parseReference(formatReference(ref))).toEqual(ref);
});
