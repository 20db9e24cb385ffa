#!/usr/bin/env bash
# Builds the local images, and dist/bunlet when it is missing or older than src/, then runs the
# init-container and restart benchmark (as root). Arguments go to scripts/bench-lifecycle.ts, e.g.
#   scripts/bench-lifecycle.sh --rounds 3 --containerd 1.6,1.7
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-images.sh >/dev/null
if [[ ! -x dist/bunlet || -n "$(find src package.json -newer dist/bunlet -print -quit)" ]]; then
  bash scripts/build.sh >/dev/null
fi
exec node_modules/.bin/bun scripts/bench-lifecycle.ts "$@"
