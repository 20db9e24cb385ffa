#!/usr/bin/env bash
# Builds the upstream Kubernetes components bunlet's tests and benchmarks run,
# from the k8s.io/kubernetes Go module pinned in go.mod, into a cache keyed by
# the version. A binary already in the cache is not rebuilt.
#
#   scripts/k8s/build.sh            # k8s (multi-call: kube-apiserver,
#                                   # kube-controller-manager, kube-scheduler,
#                                   # kube-proxy, kubectl) and its symlinks
#   scripts/k8s/build.sh kubelet    # the upstream kubelet too (benchmarks only)
#
# The last line printed is the cache directory. BUNLET_K8S_CACHE moves the
# cache (default /var/cache/bunlet-k8s).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="$(awk '$1 == "k8s.io/kubernetes" { print $2 }' "$here/go.mod" | head -1)"
out="${BUNLET_K8S_CACHE:-/var/cache/bunlet-k8s}/$version"
mkdir -p "$out"

if ! command -v go >/dev/null; then
  if [ -x /usr/local/go/bin/go ]; then PATH="/usr/local/go/bin:$PATH"; else
    echo "build.sh: go not found (need Go $(awk '$1 == "go" { print $2 }' "$here/go.mod"))" >&2; exit 1
  fi
fi

# hack/lib/version.sh's ldflags, so each binary reports the release it is.
minor="${version#v1.}"; minor="${minor%%.*}"
build_date="$(curl -fsS "https://proxy.golang.org/k8s.io/kubernetes/@v/$version.info" 2>/dev/null |
  sed -n 's/.*"Time": *"\([^"]*\)".*/\1/p' || true)"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=${build_date:-1970-01-01T00:00:00Z}"
done

# go build -v names each package as it compiles it; show a count, not thousands of lines.
progress() {
  local what="$1" n=0 line
  while IFS= read -r line; do
    n=$((n + 1))
    if [ $((n % 200)) -eq 0 ]; then echo "  $what: $n packages compiled ($(date +%T))"; fi
    case "$line" in "#"*|*".go:"*) echo "$line";; esac # compiler errors
  done
}

build() { # name, package, cgo
  local name="$1" pkg="$2" cgo="$3"
  if [ -x "$out/$name" ]; then return 0; fi
  # One build of each binary at a time: a second caller (a parallel test run) waits, then finds it.
  exec 9>"$out/.$name.lock"
  flock 9
  if [ -x "$out/$name" ]; then exec 9>&-; return 0; fi
  echo "building $name $version (a cold build takes tens of minutes on 2 cores)"
  local start=$SECONDS
  (cd "$here" && CGO_ENABLED="$cgo" go build -v -trimpath -tags selinux,notest \
    -ldflags "$ldflags" -o "$out/.$name.tmp" "$pkg") 2>&1 | progress "$name"
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "build.sh: building $name failed" >&2; exit 1; }
  mv "$out/.$name.tmp" "$out/$name"
  exec 9>&-
  echo "built $name in $((SECONDS - start)) s"
}

build k8s . 0
for c in kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubectl; do
  # (re-linked only when wrong: a running cluster may be exec'ing it right now)
  [ "$(readlink "$out/$c")" = k8s ] || ln -sfn k8s "$out/$c"
done
if [ "${1:-}" = kubelet ]; then
  # upstream builds the kubelet with cgo when it can (hack/lib/golang.sh)
  build kubelet k8s.io/kubernetes/cmd/kubelet 1
fi
echo "$out"
