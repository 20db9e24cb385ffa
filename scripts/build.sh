#!/usr/bin/env bash
# npm run build → dist/bunlet: one self-contained executable (bun build --compile). Everything,
# package.json's version included, is bundled in, so it runs from any folder with no node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."

bun=node_modules/.bin/bun
if [[ ! -x "$bun" ]]; then
  echo "build: $bun not found; run 'npm ci' first (bun is a devDependency)" >&2
  exit 1
fi

mkdir -p dist
# --sourcemap embeds the source map: stack frames, and so the file:line of every log line, name
# the TypeScript source instead of the minified bundle.
"$bun" build --compile --minify --sourcemap src/main.ts --outfile dist/bunlet
echo "build: wrote dist/bunlet ($(du -h dist/bunlet | cut -f1))"
