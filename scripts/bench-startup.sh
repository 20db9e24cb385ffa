#!/usr/bin/env bash
# Builds dist/bunlet and the local images, then runs the start-up benchmark (as root).
# Arguments go to scripts/bench-startup.ts, e.g. --pods 1,10 --rounds 5 --systems floor,bunlet.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-images.sh >/dev/null
bash scripts/build.sh >/dev/null
exec node_modules/.bin/bun scripts/bench-startup.ts "$@"
