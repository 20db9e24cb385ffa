/**
 * The architecture check: fails on an import that bypasses a folder's index.ts, an import against
 * the dependency direction, a package a folder may not use, and an export nothing uses. It reads
 * every import of every file under src/, test/ and scripts/ with the TypeScript parser: import
 * and export statements, dynamic `import("...")` and `import("...").T` types. CI runs it through
 * test/unit/architecture.test.ts and `npm run check`; `bun scripts/check-architecture.ts` prints
 * the same findings; with `--graph` it prints the folder graph, with `--write-graph` it writes it
 * into docs/architecture.md. The folder direction is `allowed` below; the package allow-list and
 * the test-only exports are in scripts/architecture-rules.ts.
 *
 * The rules:
 * - src/: another folder is imported only through its index.ts, and only if the folder's entry in
 *   `allowed` (the direction lib ← cri ← container ← lifecycle, runtime ← podworkers ← kubelet)
 *   names it; the folder graph has no cycle; nothing imports kubelet/ but main.ts. main.ts is
 *   the only file directly under src/. An npm package only where `packages` allows it.
 * - A folder may have a second door, testing.ts, for test helpers (lib's FakeClock): test/ and
 *   scripts/ may import it, src/ may not.
 * - test/ and scripts/: src/ through each folder's index.ts (or testing.ts), except that the tests
 *   of a folder (test/<layer>/<folder>/) may open the files of that folder.
 * - An index.ts exports only what something outside the folder and its own tests uses (the tests
 *   of a folder open its files directly; src/api keeps every type of the v1 model); any other
 *   file exports no value (function, class, constant) that no other file uses. Types may stay
 *   exported there: they describe a signature.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { renderGraph, writeGraph } from "./architecture-graph.ts";
import { packages, testedThroughIndex } from "./architecture-rules.ts";

/** Which folders each src/ folder may import (through their index.ts). */
const subsystem = ["api", "container", "cri", "lib", "metrics"];
const allowed: Record<string, readonly string[]> = {
  lib: [],
  api: [],
  // kubernetes_build_info carries bunlet's version, which config reads from package.json.
  metrics: ["config"],
  // Byte sizes (containerLogMaxSize, ...) are resource quantities, read with api's Quantity.
  config: ["api", "lib"],
  cri: ["lib"],
  containerd: ["lib"],
  apiclient: ["lib"],
  container: ["api", "cri", "lib"],
  lifecycle: ["api", "container", "cri", "lib"],
  runtime: ["api", "container", "cri", "events", "lib", "lifecycle", "metrics", "subpath"],
  // subPath safety (the kubelet's pkg/volume/util/subpath): safe open, safe mkdir, bind mounts
  // under the pod directory and their cleanup; used by makeMounts (runtime) and the volume teardown.
  subpath: ["lib"],
  // The kubelet's event recorder and its apiserver sink.
  events: ["api", "apiclient", "lib"],
  // The kubelet's pod admission predicates: pure, over the v1 Pod.
  admission: ["api"],
  // RuntimeClass names to CRI runtime handlers, from the apiserver's RuntimeClasses.
  runtimeclass: ["apiclient", "lib"],
  // The node's record of its desired state (issue 27): files over the v1 model, nothing else.
  checkpoint: ["api", "lib"],
  // Mirror pods: the apiserver's copies of static pods, kept by the wiring's pod syncer and housekeeping.
  mirrorpods: ["api", "apiclient", "lib"],
  // The subsystems below use the container view and may use each other's index.ts.
  // The apiserver source lists and watches this node's pods through the API client.
  podconfig: [...subsystem, "apiclient"],
  pleg: [...subsystem],
  // The status sync patches pod statuses (and deletes finished pods) through the API client.
  status: [...subsystem, "apiclient"],
  prober: [...subsystem, "events"],
  // The kubelet API reads container log files (containerlogs); webhook reviews go through a narrow client interface.
  server: [...subsystem, "containerlogs"],
  // Container log files in the CRI format: files and bytes only.
  containerlogs: ["lib"],
  volumes: [...subsystem, "subpath"],
  node: [...subsystem, "apiclient"],
  podworkers: [...subsystem, "runtime"],
  // The Summary API from CRI stats and the host; the servers get it through the wiring.
  stats: ["container", "cri", "lib"],
  // Container log rotation over the CRI (ReopenContainerLog) and the pod logs directory.
  logs: ["cri", "lib"],
  // Image GC (the kubelet's image manager) over the CRI image and runtime services.
  imagegc: ["cri", "lib"],
  // The eviction manager: thresholds (api's Quantity), ranking over v1 pods; stats and kills come through the wiring.
  eviction: ["api", "lib"],
  // Graceful node shutdown on systemd-logind (busctl, gdbus, systemd-inhibit); pods are stopped through the wiring.
  shutdown: ["api", "lib"],
  kubelet: ["admission", "api", "apiclient", "checkpoint", "config", "container", "containerd", "cri", "events", "eviction", "imagegc", "lib", "logs", "metrics", "mirrorpods", "node", "pleg", "podconfig", "podworkers", "prober", "runtime", "runtimeclass", "server", "shutdown", "stats", "status", "volumes"],
  // Subcommands beside the agent (`bunlet crictl`): the CRI client and the embedded containerd's paths.
  cli: ["containerd", "cri", "lib"],
};

/** Names an index.ts keeps whoever uses them: the contracts DESIGN.md promises. */
const contracts: Record<string, readonly string[]> = {
  "src/podconfig/index.ts": ["PodStorage"],
  // The API client's list/watch and error API, for the apiserver pod source (DESIGN.md: apiclient).
  "src/apiclient/index.ts": [
    "ApiError",
    "ApiErrorReason",
    "KubeconfigError",
    "ApiClientConfig",
    "isResourceExpired",
    "isUnreachable",
    "ListOptions",
    "ObjectList",
    "PatchType",
    "RequestOptions",
    "WatchEvent",
    "WatchOptions",
    "createReflector",
    "Reflector",
    "ReflectorOptions",
    "ObjectStore",
    "KubeObject",
    "ReflectorStore",
  ],
};

interface Use {
  /** The file that imports. */
  from: string;
  /** The file imported (absolute), or undefined for a package. */
  target: string;
  /** Imported names; "*" for a namespace import or export *. */
  names: string[];
  /** A re-export (`export ... from`) rather than an import. */
  reexport: boolean;
  line: number;
}

interface FileInfo {
  path: string;
  /** Names this file exports, with the line of each. */
  exports: Map<string, number>;
  /** The exported names that are types only (interfaces, type aliases). */
  types: Set<string>;
  /** For `export * from`, the files whose names this file exports. */
  starFrom: string[];
  uses: Use[];
  /** npm packages imported (node: and bun: built-ins left out), with the line of each. */
  packages: { name: string; line: number }[];
}

/** The package a bare specifier names: "@scope/name" or "name". */
function packageName(spec: string): string {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

const isBuiltin = (spec: string) => spec.startsWith("node:") || spec.startsWith("bun:") || spec === "bun";

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== "node_modules" && name !== "gen") out.push(...listFiles(path));
    } else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function parse(path: string): FileInfo {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const info: FileInfo = { path, exports: new Map(), types: new Set(), starFrom: [], uses: [], packages: [] };
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const targetOf = (spec: ts.Node) => {
    if (!ts.isStringLiteralLike(spec)) return undefined;
    const text = spec.text;
    if (text.startsWith(".")) return resolve(dirname(path), text);
    if (!isBuiltin(text)) info.packages.push({ name: packageName(text), line: lineOf(spec) });
    return undefined;
  };
  // Imports below the top level: `await import("../x/index.ts")` uses the whole module (which
  // names is not known); `import("../x/index.ts").T` uses T.
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) {
      const target = targetOf(node.arguments[0]);
      if (target) info.uses.push({ from: path, target, names: ["*"], reexport: false, line: lineOf(node) });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const target = targetOf(node.argument.literal);
      let first = node.qualifier;
      while (first && ts.isQualifiedName(first)) first = first.left;
      if (target) info.uses.push({ from: path, target, names: [first ? first.text : "*"], reexport: false, line: lineOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  for (const node of source.statements) {
    ts.forEachChild(node, visit);
    if (ts.isImportDeclaration(node)) {
      const target = targetOf(node.moduleSpecifier);
      if (!target) continue;
      const names: string[] = [];
      const clause = node.importClause;
      if (clause?.name) names.push("default");
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push("*");
      if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) names.push((el.propertyName ?? el.name).text);
      info.uses.push({ from: path, target, names, reexport: false, line: lineOf(node) });
    } else if (ts.isExportDeclaration(node)) {
      const target = node.moduleSpecifier ? targetOf(node.moduleSpecifier) : undefined;
      const clause = node.exportClause;
      if (!clause) {
        if (target) {
          info.starFrom.push(target);
          info.uses.push({ from: path, target, names: ["*"], reexport: true, line: lineOf(node) });
        }
        continue;
      }
      if (ts.isNamespaceExport(clause)) {
        // export * as ns from "./x": one name here, every name of x used.
        info.exports.set(clause.name.text, lineOf(node));
        if (target) info.uses.push({ from: path, target, names: ["*"], reexport: true, line: lineOf(node) });
        continue;
      }
      const names: string[] = [];
      for (const el of clause.elements) {
        info.exports.set(el.name.text, lineOf(el));
        if (node.isTypeOnly || el.isTypeOnly) info.types.add(el.name.text);
        names.push((el.propertyName ?? el.name).text);
      }
      if (target) info.uses.push({ from: path, target, names, reexport: true, line: lineOf(node) });
    } else if (ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(node)) {
        for (const decl of node.declarationList.declarations) if (ts.isIdentifier(decl.name)) info.exports.set(decl.name.text, lineOf(decl));
      } else if ("name" in node && node.name && ts.isIdentifier(node.name as ts.Node)) {
        const name = (node.name as ts.Identifier).text;
        info.exports.set(name, lineOf(node));
        if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) info.types.add(name);
      }
    }
  }
  return info;
}

/**
 * src/<folder>/... → folder; src/main.ts → "main"; another file directly under src/ → its own
 * name ("util.ts"), a folder no rule allows anything; outside src → undefined.
 */
function srcFolder(root: string, path: string): string | undefined {
  const rel = relative(join(root, "src"), path);
  if (rel.startsWith("..")) return undefined;
  const parts = rel.split("/");
  if (parts.length > 1) return parts[0];
  return rel === "main.ts" ? "main" : rel;
}

/** The folder a test file tests: test/<layer>/<folder>/... → folder. */
function testedFolder(root: string, path: string): string | undefined {
  const parts = relative(join(root, "test"), path).split("/");
  if (parts[0]?.startsWith("..") || parts.length < 3) return undefined;
  return parts[1];
}

function findCycle(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (n: string): string[] | undefined => {
    if (state.get(n) === "done") return undefined;
    if (state.get(n) === "visiting") return [...stack.slice(stack.indexOf(n)), n];
    state.set(n, "visiting");
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      const cycle = visit(m);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(n, "done");
    return undefined;
  };
  for (const n of graph.keys()) {
    const cycle = visit(n);
    if (cycle) return cycle;
  }
  return undefined;
}

export function checkArchitecture(root: string): string[] {
  return analyzeArchitecture(root).problems;
}

/** The problems, and the folder graph as the imports draw it (main.ts as "main"). */
export function analyzeArchitecture(root: string): { problems: string[]; graph: Map<string, Set<string>> } {
  const files = ["src", "test", "scripts"].flatMap((d) => listFiles(join(root, d))).map(parse);
  const byPath = new Map(files.map((f) => [f.path, f]));
  const problems: string[] = [];
  const where = (path: string, line: number) => `${relative(root, path)}:${line}`;
  const folderGraph = new Map<string, Set<string>>();

  for (const file of files) {
    const from = srcFolder(root, file.path);
    if (from?.endsWith(".ts")) {
      problems.push(`src/${from}: only main.ts lives directly under src/; move this file into a folder with an index.ts`);
    }
    if (from !== undefined) {
      for (const pkg of file.packages) {
        if (!(packages[from] ?? []).includes(pkg.name)) {
          problems.push(`${where(file.path, pkg.line)}: ${from} imports the package ${pkg.name} (allowed: ${(packages[from] ?? []).join(", ") || "none"})`);
        }
      }
    }
    for (const use of file.uses) {
      const to = srcFolder(root, use.target);
      if (to === undefined || to === "main" || to === from) continue;
      const viaIndex = use.target === join(root, "src", to, "index.ts");
      const viaTesting = use.target === join(root, "src", to, "testing.ts");
      if (from !== undefined) {
        if (viaTesting) problems.push(`${where(file.path, use.line)}: imports src/${to}/testing.ts, the test helpers' door; production code uses src/${to}/index.ts`);
        else if (!viaIndex) problems.push(`${where(file.path, use.line)}: imports ${relative(root, use.target)}; use src/${to}/index.ts`);
        if (to === "kubelet" && from !== "main") problems.push(`${where(file.path, use.line)}: imports kubelet/; nothing but main.ts may`);
        else if (from !== "main" && !(allowed[from] ?? []).includes(to)) {
          problems.push(`${where(file.path, use.line)}: ${from} imports ${to}, against the dependency direction (allowed: ${(allowed[from] ?? []).join(", ") || "nothing"})`);
        }
        if (!folderGraph.has(from)) folderGraph.set(from, new Set());
        folderGraph.get(from)!.add(to);
      } else if (!viaIndex && !viaTesting && testedFolder(root, file.path) !== to) {
        problems.push(`${where(file.path, use.line)}: imports ${relative(root, use.target)}; outside the tests of src/${to}/ use src/${to}/index.ts`);
      }
    }
  }
  for (const file of files) {
    const folder = srcFolder(root, file.path);
    if (folder !== undefined && !folderGraph.has(folder)) folderGraph.set(folder, new Set());
  }
  const cycle = findCycle(folderGraph);
  if (cycle) problems.push(`src/ folders import each other in a cycle: ${cycle.join(" → ")}`);

  // Which exported names are used, and by whom.
  const usedBy = new Map<string, Set<string>>(); // "<file>#<name>" → importing files
  const note = (target: string, name: string, from: string) => {
    const key = `${target}#${name}`;
    if (!usedBy.has(key)) usedBy.set(key, new Set());
    usedBy.get(key)!.add(from);
  };
  const namesOf = (path: string, seen = new Set<string>()): string[] => {
    const f = byPath.get(path);
    if (!f || seen.has(path)) return [];
    seen.add(path);
    return [...f.exports.keys(), ...f.starFrom.flatMap((p) => namesOf(p, seen))];
  };
  for (const file of files) {
    for (const use of file.uses) {
      const names = use.names.includes("*") ? namesOf(use.target) : use.names;
      for (const name of names) note(use.target, name, file.path);
    }
  }
  // `export *` re-exports: a use of the index's name is a use of the file it comes from.
  for (const file of files) {
    for (const star of file.starFrom) {
      for (const name of namesOf(star)) for (const from of usedBy.get(`${file.path}#${name}`) ?? []) note(star, name, from);
    }
  }

  const namesOfTypes = (index: FileInfo) => new Set([...index.types, ...index.starFrom.flatMap((p) => [...(byPath.get(p)?.types ?? [])])]);
  for (const file of files) {
    const folder = srcFolder(root, file.path);
    if (folder === undefined || folder === "main") continue;
    const isIndex = file.path === join(root, "src", folder, "index.ts");
    const isTesting = file.path === join(root, "src", folder, "testing.ts");
    const door = isIndex || isTesting;
    const names = [...file.exports].map(([name, line]) => ({ name, line }));
    if (door) names.push(...file.starFrom.flatMap((p) => namesOf(p).map((name) => ({ name, line: 1 }))));
    for (const { name, line } of names) {
      const users = [...(usedBy.get(`${file.path}#${name}`) ?? [])];
      // The v1 model keeps every type the API names, as the API defines them.
      if (isIndex && folder === "api" && namesOfTypes(file).has(name)) continue;
      if (isIndex && contracts[relative(root, file.path)]?.includes(name)) continue;
      if (door) {
        const outside = users.filter((u) => srcFolder(root, u) !== folder && testedFolder(root, u) !== folder);
        const doorPath = relative(root, file.path);
        if (outside.length === 0) problems.push(`${where(file.path, line)}: ${doorPath} exports ${name}, which nothing outside the folder and its tests uses`);
        else if (isIndex && !namesOfTypes(file).has(name) && outside.every((u) => relative(root, u).startsWith("test/")) && !testedThroughIndex[doorPath]?.includes(name)) {
          problems.push(`${where(file.path, line)}: ${doorPath} exports ${name}, which only tests use; test helpers go through src/${folder}/testing.ts`);
        }
      } else if (!file.types.has(name) && users.filter((u) => u !== file.path).length === 0) {
        problems.push(`${where(file.path, line)}: exports ${name}, which no other file uses`);
      }
    }
  }
  return { problems, graph: folderGraph };
}

if (import.meta.main) {
  const root = resolve(import.meta.dir, "..");
  const { problems, graph } = analyzeArchitecture(root);
  if (process.argv.includes("--graph")) console.log(renderGraph(graph));
  if (process.argv.includes("--write-graph")) writeGraph(root, graph);
  for (const p of problems) console.log(p);
  console.log(`${problems.length} problem(s)`);
  process.exit(problems.length === 0 ? 0 : 1);
}
