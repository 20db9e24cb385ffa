/**
 * crictl's command line, as urfave/cli parses it: flags before the positional arguments (the
 * first non-flag ends them, so `exec ID ls -l` keeps `-l` for the command), `--flag value` and
 * `--flag=value`, one-letter aliases, combined short booleans (`-aq`), repeatable string-slice
 * flags, and `--` to end the flags. Problems are UsageErrors with crictl-like wording.
 */

export type FlagKind = "bool" | "string" | "int" | "strings";

export interface FlagSpec {
  name: string;
  alias?: string;
  kind: FlagKind;
  usage: string;
}

/** A bad command line; printed with the command's usage, exit status 1 as crictl's. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export interface Parsed {
  bools: Set<string>;
  strings: Map<string, string>;
  lists: Map<string, string[]>;
  ints: Map<string, number>;
  args: string[];
}

export function parseCommandArgs(argv: readonly string[], specs: readonly FlagSpec[]): Parsed {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byAlias = new Map(specs.filter((s) => s.alias).map((s) => [s.alias!, s]));
  const out: Parsed = { bools: new Set(), strings: new Map(), lists: new Map(), ints: new Map(), args: [] };

  const set = (spec: FlagSpec, value: string | undefined, shown: string) => {
    if (spec.kind === "bool") {
      if (value === undefined || value === "true") out.bools.add(spec.name);
      else if (value === "false") out.bools.delete(spec.name);
      else throw new UsageError(`invalid boolean value "${value}" for flag ${shown}`);
      return;
    }
    if (value === undefined) throw new UsageError(`flag needs an argument: ${shown}`);
    if (spec.kind === "int") {
      if (!/^-?\d+$/.test(value)) throw new UsageError(`invalid value "${value}" for flag ${shown}: parse error`);
      out.ints.set(spec.name, Number(value));
    } else if (spec.kind === "strings") out.lists.set(spec.name, [...(out.lists.get(spec.name) ?? []), value]);
    else out.strings.set(spec.name, value);
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      out.args.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      out.args.push(...argv.slice(i));
      break;
    }
    const long = arg.startsWith("--");
    const body = arg.slice(long ? 2 : 1);
    const eq = body.indexOf("=");
    const key = eq < 0 ? body : body.slice(0, eq);
    const inline = eq < 0 ? undefined : body.slice(eq + 1);
    const spec = long ? byName.get(key) : (byAlias.get(key) ?? byName.get(key));
    if (!spec && !long && inline === undefined && key.length > 1 && [...key].every((c) => byAlias.get(c)?.kind === "bool")) {
      // Combined short booleans: -aq.
      for (const c of key) set(byAlias.get(c)!, undefined, `-${c}`);
      continue;
    }
    if (!spec) throw new UsageError(`flag provided but not defined: ${arg.split("=")[0]}`);
    let value = inline;
    if (value === undefined && spec.kind !== "bool") {
      if (i + 1 >= argv.length) throw new UsageError(`flag needs an argument: ${arg}`);
      value = argv[++i];
    }
    set(spec, value, arg.split("=")[0]);
  }
  return out;
}

/** The usage lines of a command's flags, as `--help` prints them. */
export function flagUsage(specs: readonly FlagSpec[]): string {
  const rows = specs.map((s) => {
    const names = s.alias ? `--${s.name} value, -${s.alias} value` : `--${s.name} value`;
    return [s.kind === "bool" ? names.replaceAll(" value", "") : names, s.usage] as const;
  });
  const width = Math.max(...rows.map(([n]) => n.length)) + 2;
  return rows.map(([n, u]) => `   ${n.padEnd(width)}${u}`).join("\n");
}
