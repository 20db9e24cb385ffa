#!/usr/bin/env bash
# Builds metrics-server (sigs.k8s.io/metrics-server, the release pinned in metrics-server/go.mod)
# from its Go module, as build.sh builds the control plane, into a cache keyed by its version.
# A binary already in the cache is not rebuilt. The tests run it outside the cluster, as a
# process with a kubeconfig, registered as the v1beta1.metrics.k8s.io APIService.
#
#   scripts/k8s/build-metrics-server.sh     # last line printed: the binary's path
#
# BUNLET_K8S_CACHE moves the cache (default /var/cache/bunlet-k8s).
set -euo pipefail
here="$(cd "$(dirname "$0")/metrics-server" && pwd)"
version="$(awk '$1 == "require" && $2 == "sigs.k8s.io/metrics-server" { print $3 } $1 == "sigs.k8s.io/metrics-server" { print $2 }' "$here/go.mod" | head -1)"
out="${BUNLET_K8S_CACHE:-/var/cache/bunlet-k8s}/metrics-server/$version"
bin="$out/metrics-server"
mkdir -p "$out"

if ! command -v go >/dev/null; then
  if [ -x /usr/local/go/bin/go ]; then PATH="/usr/local/go/bin:$PATH"; else
    echo "build-metrics-server.sh: go not found (need Go $(awk '$1 == "go" { print $2 }' "$here/go.mod"))" >&2; exit 1
  fi
fi

if [ ! -x "$bin" ]; then
  # One build at a time: a second caller (a parallel test run) waits, then finds the binary.
  exec 9>"$out/.lock"
  flock 9
  if [ ! -x "$bin" ]; then
    echo "building metrics-server $version"
    start=$SECONDS
    # The release's own version stamp (its Makefile's LDFLAGS), so /version and logs name it.
    ldflags="-s -w -X k8s.io/client-go/pkg/version.gitVersion=$version -X k8s.io/client-go/pkg/version.gitTreeState=clean"
    (cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$out/.metrics-server.tmp" sigs.k8s.io/metrics-server/cmd/metrics-server)
    mv "$out/.metrics-server.tmp" "$bin"
    echo "built metrics-server in $((SECONDS - start)) s"
  fi
  exec 9>&-
fi
echo "$bin"
