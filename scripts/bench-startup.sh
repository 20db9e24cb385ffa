#!/usr/bin/env bash
# Builds the local images, and dist/bunlet when it is missing or older than src/, then runs the
# start-up benchmark (as root). Arguments go to scripts/bench-startup.ts, e.g.
#   scripts/bench-startup.sh --pods 1,10 --rounds 5 --systems floor,bunlet
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-images.sh >/dev/null
if [[ ! -x dist/bunlet || -n "$(find src package.json -newer dist/bunlet -print -quit)" ]]; then
  bash scripts/build.sh >/dev/null
fi
exec node_modules/.bin/bun scripts/bench-startup.ts "$@"
