#!/usr/bin/env bash
# Builds the local images, and dist/bunlet when it is missing or older than src/, then runs the
# start-up benchmarks (as root): static pods (scripts/bench-startup.ts: CRI floor, bunlet, the
# kubelet and podman), then cluster pods (scripts/bench-cluster.ts: bunlet and the kubelet as two
# nodes of a local control plane). --static-only skips the second. Arguments go to
# bench-startup.ts; --pods, --rounds, --timeout, --idle-pods, --idle-seconds, --bunlet and
# --kubelet also to bench-cluster.ts, and --systems there keeps only bunlet and kubelet. E.g.
#   scripts/bench-startup.sh --pods 1,10 --rounds 5 --systems floor,bunlet --static-only
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-images.sh >/dev/null
if [[ ! -x dist/bunlet || -n "$(find src package.json -newer dist/bunlet -print -quit)" ]]; then
  bash scripts/build.sh >/dev/null
fi

systems=floor,bunlet,kubelet,podman
cluster=1
static_args=()
cluster_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --static-only) cluster=0; shift ;;
    --systems) systems=${2:-}; static_args+=("$1" "$systems"); shift 2 ;;
    --pods | --rounds | --timeout | --idle-pods | --idle-seconds | --bunlet | --kubelet)
      static_args+=("$1" "${2:-}"); cluster_args+=("$1" "${2:-}"); shift 2 ;;
    *) static_args+=("$1"); shift ;;
  esac
done

# podman is the start-up peer (Debian's 4.3): install it unless --systems leaves it out.
if [[ ,$systems, == *,podman,* ]] && ! command -v podman >/dev/null; then
  apt-get install -y podman >/dev/null || echo "podman could not be installed: its column is skipped" >&2
fi
node_modules/.bin/bun scripts/bench-startup.ts "${static_args[@]}"

agents=$(tr , '\n' <<<"$systems" | { grep -xE 'bunlet|kubelet' || true; } | paste -sd, -)
if [[ $cluster == 1 && -n $agents ]]; then
  echo
  node_modules/.bin/bun scripts/bench-cluster.ts --systems "$agents" "${cluster_args[@]}"
fi
