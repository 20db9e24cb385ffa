#!/usr/bin/env bash
# Builds the upstream end-to-end suite and the programs of its test images from
# the k8s.io/kubernetes module pinned in scripts/k8s/e2e/go.mod, into
# <cache>/<version>/e2e/. A file already in the cache is not rebuilt.
#
#   e2e.test     go test -c k8s.io/kubernetes/test/e2e (the suite itself)
#   ginkgo       the ginkgo CLI that runs it in parallel processes
#   agnhost      test/images/agnhost (the suite's Swiss-army test server)
#   nnp          test/images/nonewprivs (the no_new_privs check)
#   sample-apiserver  k8s.io/sample-apiserver (the aggregator spec's extension apiserver), at the
#                version the suite links (go.mod's replace: v0.37.2; upstream's image 1.29.2 is
#                sample-apiserver v0.29's code)
#   pause        build/pause/linux/pause.c, gcc -static (the sandbox image)
#
# Built at nice 19: a cold build takes ~20 minutes on 2 cores and the link of
# e2e.test needs a few GiB of memory. The last line printed is the cache
# directory. BUNLET_K8S_CACHE moves the cache (default /var/cache/bunlet-k8s).
set -euo pipefail
here="$(cd "$(dirname "$0")/e2e" && pwd)"
version="$(awk '$1 == "k8s.io/kubernetes" { print $2 }' "$here/go.mod" | head -1)"
version="${version:-$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" { print $3 }' "$here/go.mod")}"
out="${BUNLET_K8S_CACHE:-/var/cache/bunlet-k8s}/$version/e2e"
mkdir -p "$out"

if ! command -v go >/dev/null; then
  if [ -x /usr/local/go/bin/go ]; then PATH="/usr/local/go/bin:$PATH"; else
    echo "build-e2e.sh: go not found" >&2; exit 1
  fi
fi

# The version the suite reports (and compares with the apiserver's), as
# hack/lib/version.sh stamps it.
minor="${version#v1.}"; minor="${minor%%.*}"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean"
done

progress() { # go -v prints one line per package: show a count, and errors
  local what="$1" n=0 line
  while IFS= read -r line; do
    n=$((n + 1))
    if [ $((n % 200)) -eq 0 ]; then echo "  $what: $n packages compiled ($(date +%T))"; fi
    case "$line" in "#"*|*".go:"*|*rror*) echo "$line";; esac
  done
}

build() { # name, then the command that writes $tmp
  local name="$1"; shift
  if [ -x "$out/$name" ]; then return 0; fi
  # One build of each file at a time: a second caller waits, then finds it.
  exec 9>"$out/.$name.lock"
  flock 9
  if [ -x "$out/$name" ]; then exec 9>&-; return 0; fi
  echo "building $name $version ($(date +%T))"
  local start=$SECONDS
  tmp="$out/.$name.tmp"
  (cd "$here" && "$@") 2>&1 | progress "$name"
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "build-e2e.sh: building $name failed" >&2; exit 1; }
  mv "$tmp" "$out/$name"
  exec 9>&-
  echo "built $name in $((SECONDS - start)) s"
}

export GOFLAGS=-mod=mod CGO_ENABLED=0
gobuild() { nice -n 19 go build -v -trimpath -ldflags "$ldflags" -o "$tmp" "$1"; }
e2etest() { nice -n 19 go test -c -trimpath -ldflags "$ldflags" -o "$tmp" k8s.io/kubernetes/test/e2e; }
pause() {
  # The module zip holds build/pause (it has no go.mod of its own); the same
  # flags as upstream's build/pause/Makefile, with the version of the image
  # this pause stands for.
  local src
  src="$(go mod download -json k8s.io/kubernetes@"$version" | sed -n 's/.*"Dir": *"\([^"]*\)".*/\1/p')"
  nice -n 19 gcc -Os -Wall -Werror -static -DVERSION="v3.10.2-bunlet" -o "$tmp" "$src/build/pause/linux/pause.c"
}

build ginkgo gobuild github.com/onsi/ginkgo/v2/ginkgo
build agnhost gobuild k8s.io/kubernetes/test/images/agnhost
build nnp gobuild k8s.io/kubernetes/test/images/nonewprivs
build sample-apiserver gobuild k8s.io/sample-apiserver
build pause pause
build e2e.test e2etest
echo "$out"
