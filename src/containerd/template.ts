/**
 * The user's hand on the embedded containerd's config, as k3s's `config.toml.tmpl`: when
 * `<root-dir>/containerd/config.toml.tmpl` exists, it is the config, with `{{ template "base" . }}`
 * standing for the config bunlet renders. A template that includes the base and appends tables
 * adds runtime handlers (a RuntimeClass's `handler`), registry mirrors and the like while bunlet
 * keeps its own settings; one without it replaces bunlet's config whole. Go templates can do more;
 * bunlet reads this one action only, and says so for any other.
 */
import { existsSync, readFileSync } from "node:fs";

/** `{{ template "base" . }}`, with Go's optional trim markers and any spacing. */
const BASE_ACTION = /\{\{-?\s*template\s+"base"\s+\.\s*-?\}\}/g;

/** The config containerd is given: the template with the base filled in, or the base alone. */
export function applyConfigTemplate(templateFile: string, base: string): { text: string; fromTemplate: boolean } {
  if (!existsSync(templateFile)) return { text: base, fromTemplate: false };
  const template = readFileSync(templateFile, "utf8");
  const text = template.replace(BASE_ACTION, () => base);
  const other = /\{\{.*?\}\}/s.exec(text);
  if (other) {
    throw new Error(
      `containerd config template ${templateFile}: ${JSON.stringify(other[0])} is not supported; ` +
        `bunlet fills in {{ template "base" . }} (the config it renders) and nothing else`,
    );
  }
  try {
    Bun.TOML.parse(text);
  } catch (err) {
    // A table the base already defines, given again, is the usual mistake: TOML forbids it.
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(
      `containerd config template ${templateFile} does not make valid TOML (${why}); ` +
        `a table that {{ template "base" . }} already defines cannot be given again: see the rendered base in ${templateFile.replace(/\.tmpl$/, ".base")}`,
    );
  }
  return { text, fromTemplate: true };
}
