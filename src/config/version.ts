/**
 * bunlet's version, from package.json. The bundler inlines the JSON, so the compiled binary
 * carries it and needs no file at run time.
 */
import pkg from "../../package.json";

const VERSION: string = pkg.version;

/** The line `bunlet --version` prints. */
export function versionText(): string {
  return `bunlet v${VERSION}`;
}
