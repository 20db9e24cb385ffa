// The shape of the composition root (issue 29): src/kubelet/ is wiring only (no file but the
// wiring's), each wiring function (wire*, startAgent) stays short enough to read at once, and
// builds its parts in an order where nothing is bound after construction: no `let` assigned
// again later.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/** Longest a wiring function may be, its signature and closing brace counted. */
const MAX_LINES = 60;
const WIRING_NAME = /^(wire[A-Z]\w*|startAgent)$/;

interface WiringFunction {
  name: string;
  lines: number;
  /** `let` names the function (or a closure inside it) assigns after their declaration. */
  rebound: string[];
}

const ASSIGNMENTS = new Set([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.PlusEqualsToken,
  ts.SyntaxKind.MinusEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
]);

/** Names declared with `let` anywhere in `body` that are assigned (or ++/--) anywhere in it. */
function reboundLets(body: ts.Node): string[] {
  const lets = new Set<string>();
  const assigned = new Set<string>();
  const visit = (n: ts.Node): void => {
    if (ts.isVariableDeclarationList(n) && (n.flags & ts.NodeFlags.Let) !== 0) {
      for (const d of n.declarations) if (ts.isIdentifier(d.name)) lets.add(d.name.text);
    }
    if (ts.isBinaryExpression(n) && ASSIGNMENTS.has(n.operatorToken.kind) && ts.isIdentifier(n.left)) assigned.add(n.left.text);
    if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && ts.isIdentifier(n.operand)) {
      if (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken) assigned.add(n.operand.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(body);
  return [...lets].filter((name) => assigned.has(name)).sort();
}

/** Every function named wire* or startAgent in a file: declarations, and functions assigned to a const. */
function wiringFunctions(fileName: string, text: string): WiringFunction[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: WiringFunction[] = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const record = (name: string, node: ts.Node) => {
    out.push({ name, lines: lineOf(node.getEnd()) - lineOf(node.getStart(sf)) + 1, rebound: reboundLets(node) });
  };
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionDeclaration(n) && n.name && WIRING_NAME.test(n.name.text)) record(n.name.text, n);
    else if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && WIRING_NAME.test(n.name.text) && n.initializer) {
      if (ts.isArrowFunction(n.initializer) || ts.isFunctionExpression(n.initializer)) record(n.name.text, n.initializer);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** What breaks the shape, one line per function. */
function shapeProblems(files: Record<string, string>): string[] {
  const problems: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    for (const f of wiringFunctions(file, text)) {
      if (f.lines > MAX_LINES) problems.push(`${file}: ${f.name} is ${f.lines} lines (at most ${MAX_LINES}); split it by concern into wire functions of their own`);
      if (f.rebound.length > 0) problems.push(`${file}: ${f.name} assigns let ${f.rebound.join(", ")} after declaring it; build the parts in order, or hand both sides an explicit object`);
    }
  }
  return problems;
}

/**
 * kubeAPIQPS/kubeAPIBurst handed to a client as they are (`qps: config.kubeAPIQPS`): 0 would then
 * mean no limit, where client-go (and so the kubelet) reads it as 5 QPS with a burst of 10. The
 * wiring reads them through restClientLimits.
 */
function rawApiLimits(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isPropertyAssignment(n) && /\.kubeAPI(QPS|Burst)$/.test(n.initializer.getText(sf))) {
      out.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${n.getText(sf)}; pass restClientLimits(config.kubeAPIQPS, config.kubeAPIBurst) instead`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/**
 * The files src/kubelet/ may hold: the wiring by area (wire.ts, wire-*.ts, wire-base.ts among
 * them), its door, and the teardown order the wiring stops its parts in. A start-up step or a
 * rule with its own policy lives in the folder that owns it (src/boot/ for the lock, the open
 * files limit and the runtime connection).
 */
const WIRING_FILE = /^(index|teardown|wire|wire-[a-z][a-z-]*)\.ts$/;

/** The .ts files in a listing of src/kubelet/ that are not wiring, with what to do about each. */
function nonWiringFiles(names: readonly string[]): string[] {
  return names
    .filter((f) => f.endsWith(".ts") && !WIRING_FILE.test(f))
    .map((f) => `src/kubelet/${f} is not wiring; move it to the folder whose policy it holds (src/boot/ for start-up steps)`);
}

const kubeletDir = join(import.meta.dir, "../../../src/kubelet");

test("src/kubelet holds only the wiring: wire*.ts, index.ts and teardown.ts", () => {
  const names = readdirSync(kubeletDir);
  expect(names).toContain("wire-base.ts");
  expect(nonWiringFiles(names)).toEqual([]);
});

test("every wiring function in src/kubelet is at most 60 lines and binds nothing late with a let", () => {
  const files = Object.fromEntries(
    readdirSync(kubeletDir)
      .filter((f) => f.endsWith(".ts"))
      .map((f) => [`src/kubelet/${f}`, readFileSync(join(kubeletDir, f), "utf8")]),
  );
  expect(Object.values(files).flatMap((t) => wiringFunctions("x.ts", t)).map((f) => f.name)).toContain("startAgent");
  expect(shapeProblems(files)).toEqual([]);
});

test("every client made from kubeAPIQPS/kubeAPIBurst reads them through restClientLimits (0 is client-go's 5 QPS, not no limit)", () => {
  const problems = readdirSync(kubeletDir)
    .filter((f) => f.endsWith(".ts"))
    .flatMap((f) => rawApiLimits(`src/kubelet/${f}`, readFileSync(join(kubeletDir, f), "utf8")));
  expect(problems).toEqual([]);
});

describe("the shape rules", () => {
  test("a start-up step or a policy file in src/kubelet is not wiring; wire files, the door and the teardown are", () => {
    const listing = ["connect-runtime.ts", "index.ts", "rlimit.ts", "root-lock.ts", "teardown.ts", "wire.ts", "wire-base.ts", "wire-pod-areas.ts", "wireless.ts", "README.md"];
    expect(nonWiringFiles(listing)).toEqual([
      "src/kubelet/connect-runtime.ts is not wiring; move it to the folder whose policy it holds (src/boot/ for start-up steps)",
      "src/kubelet/rlimit.ts is not wiring; move it to the folder whose policy it holds (src/boot/ for start-up steps)",
      "src/kubelet/root-lock.ts is not wiring; move it to the folder whose policy it holds (src/boot/ for start-up steps)",
      "src/kubelet/wireless.ts is not wiring; move it to the folder whose policy it holds (src/boot/ for start-up steps)",
    ]);
  });

  test("kubeAPIQPS passed as it is is found; through restClientLimits, or another setting, it is not", () => {
    const text = `const a = createApiClient(c, { qps: config.kubeAPIQPS, burst: config.kubeAPIBurst });\nconst b = createApiClient(c, { ...restClientLimits(config.kubeAPIQPS, config.kubeAPIBurst) });\nconst e = createApiClient(c, { qps: config.eventRecordQPS });\n`;
    expect(rawApiLimits("a.ts", text)).toEqual([
      "a.ts:1: qps: config.kubeAPIQPS; pass restClientLimits(config.kubeAPIQPS, config.kubeAPIBurst) instead",
      "a.ts:1: burst: config.kubeAPIBurst; pass restClientLimits(config.kubeAPIQPS, config.kubeAPIBurst) instead",
    ]);
  });

  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const a${i} = ${i};`).join("\n");

  test("a wire function of 61 lines is too long, one of 60 is not", () => {
    expect(shapeProblems({ "a.ts": `export function wireLong() {\n${body(59)}\n}\n` })).toEqual(["a.ts: wireLong is 61 lines (at most 60); split it by concern into wire functions of their own"]);
    expect(shapeProblems({ "a.ts": `export function wireShort() {\n${body(58)}\n}\n` })).toEqual([]);
  });

  test("startAgent and wire functions assigned to a const are measured too; other functions are not", () => {
    const names = wiringFunctions("a.ts", `async function startAgent() {}\nconst wireX = () => 1;\nfunction helper() {}\nfunction wirelessly() {}\n`).map((f) => f.name);
    expect(names).toEqual(["startAgent", "wireX"]);
  });

  test("a let assigned later, even inside a closure or by ??=, is late binding; a let never assigned again is not", () => {
    const text = `function wireA() {\n  let x = 1;\n  let y: number | undefined;\n  let z = 0;\n  const f = () => { x = 2; };\n  y ??= 3;\n  return z + f.length + (y ?? 0);\n}\nfunction wireB() {\n  let n = 0;\n  n++;\n}\n`;
    expect(wiringFunctions("a.ts", text).map((f) => [f.name, f.rebound])).toEqual([
      ["wireA", ["x", "y"]],
      ["wireB", ["n"]],
    ]);
  });
});
