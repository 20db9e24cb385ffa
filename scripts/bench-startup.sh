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
# podman is the start-up peer (Debian's 4.3): install it unless --systems leaves it out.
systems=floor,bunlet,kubelet,podman
args=("$@")
for i in "${!args[@]}"; do [[ ${args[$i]} == --systems ]] && systems=${args[$((i + 1))]:-}; done
if [[ ,$systems, == *,podman,* ]] && ! command -v podman >/dev/null; then
  apt-get install -y podman >/dev/null || echo "podman could not be installed: its column is skipped" >&2
fi
exec node_modules/.bin/bun scripts/bench-startup.ts "$@"
