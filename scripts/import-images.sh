#!/usr/bin/env bash
# Imports the locally built images into containerd's k8s.io namespace (the one CRI uses).
# Usage: scripts/import-images.sh ADDRESS [IMAGEDIR]
#   ADDRESS: containerd socket, as a path or unix:///path
#   IMAGEDIR: where scripts/build-images.sh wrote the tarballs (default .tmp/images; built if missing)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 1 ]]; then
  echo "usage: $0 ADDRESS [IMAGEDIR]" >&2
  exit 2
fi
address="${1#unix://}"
dir="${2:-$repo/.tmp/images}"

bash "$repo/scripts/build-images.sh" "$dir" >/dev/null
for image in pause busybox; do
  ctr --address "$address" -n k8s.io images import "$dir/$image.tar" >/dev/null
done
ctr --address "$address" -n k8s.io images ls -q | grep -E '^(registry.k8s.io/pause:3.10.2|docker.io/library/busybox:1.36)$'
