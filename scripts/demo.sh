#!/usr/bin/env bash
# README's Quick start: installs what is missing, builds dist/bunlet and the local images, then
# runs bunlet with its embedded containerd and the static pods in examples/ until Ctrl-C.
# Extra arguments go to bunlet (e.g. --v=4 or --logging-format=json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build-images.sh
bash scripts/build.sh
root=${BUNLET_ROOT_DIR:-/var/lib/bunlet}
mkdir -p "$root/images"
# The embedded containerd imports the local images at start; they stand in for a registry.
cp .tmp/images/*.tar "$root/images/"
echo "bunlet: pods from $(pwd)/examples, read-only API on http://127.0.0.1:10255 (try /pods, /healthz, /metrics)"
exec dist/bunlet --pod-manifest-path "$(pwd)/examples" --root-dir "$root" "$@"
