#!/usr/bin/env bash
# Builds CoreDNS (github.com/coredns/coredns, the release pinned in coredns/go.mod) from its Go
# module with only the plugins a cluster's DNS needs (coredns/main.go), and its image, into a
# cache keyed by the version. Nothing already in the cache is made again.
#
#   scripts/k8s/build-coredns.sh     # last line printed: the cache directory, which holds
#     coredns       the static binary (CGO_ENABLED=0, built at nice 19: a few minutes cold)
#     coredns.tar   registry.k8s.io/coredns/coredns:<version> as a docker-archive tarball, as
#                   upstream's image: /coredns with cap_net_bind_service (so the non-root user
#                   binds :53), the CA bundle, user 65532:65532, entrypoint /coredns
#
# The cluster scripts load coredns.tar onto each node (`ctr -n k8s.io images import`) and run it
# with the objects of scripts/lib/cluster-dns.sh. See docs/cluster-dns.md.
# BUNLET_K8S_CACHE moves the cache (default /var/cache/bunlet-k8s). Needs setcap (libcap2-bin)
# and root for the file capability.
set -euo pipefail
here="$(cd "$(dirname "$0")/coredns" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
version="$(awk '$1 == "require" && $2 == "github.com/coredns/coredns" { print $3 } $1 == "github.com/coredns/coredns" { print $2 }' "$here/go.mod" | head -1)"
out="${BUNLET_K8S_CACHE:-/var/cache/bunlet-k8s}/coredns-$version"
bin="$out/coredns"
image="registry.k8s.io/coredns/coredns:$version"
log() { echo "build-coredns: $*" >&2; }
die() { log "$*"; exit 1; }
mkdir -p "$out"

if ! command -v go >/dev/null; then
  if [ -x /usr/local/go/bin/go ]; then PATH="/usr/local/go/bin:$PATH"; else
    die "go not found (need Go $(awk '$1 == "go" { print $2 }' "$here/go.mod"))"
  fi
fi

# One build at a time: a second caller (a parallel test run, another node) waits, then finds it.
exec 9>"$out/.lock"
flock 9

if [ ! -x "$bin" ]; then
  log "building coredns $version ($(date +%T); a cold build takes a few minutes on 2 cores)"
  start=$SECONDS
  # As upstream's Makefile (CGO_ENABLED=0, -s -w, GitCommit stamped); gitTag makes -version say
  # the release instead of "(untracked dev build)".
  ldflags="-s -w -X github.com/coredns/coredns/coremain.gitTag=$version"
  ldflags+=" -X github.com/coredns/coredns/coremain.GitCommit=bunlet-$version"
  (cd "$here" && CGO_ENABLED=0 nice -n 19 go build -trimpath -ldflags "$ldflags" -o "$out/.coredns.tmp" .) ||
    die "building coredns failed"
  mv "$out/.coredns.tmp" "$bin"
  log "built coredns in $((SECONDS - start)) s"
fi

# The stamp covers everything the image is made of; equal stamps mean nothing to do.
stamp="$( { sha256sum "$bin" "${BASH_SOURCE[0]}" "$repo/scripts/lib/image-archive.sh" \
  /etc/ssl/certs/ca-certificates.crt | cut -d' ' -f1; } | sha256sum | cut -d' ' -f1)"
if [ ! -f "$out/coredns.tar" ] || [ "$(cat "$out/.stamp" 2>/dev/null)" != "$stamp" ]; then
  command -v setcap >/dev/null || die "setcap not found; install libcap2-bin (scripts/install-deps.sh)"
  work="$(mktemp -d "${TMPDIR:-/tmp}/bunlet-coredns-image.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  # shellcheck source=../lib/image-archive.sh
  source "$repo/scripts/lib/image-archive.sh"
  # Upstream's image is distroless/static (CA bundle, passwd with nonroot, /tmp) plus /coredns with
  # cap_net_bind_service=+ep: the Deployment drops ALL but NET_BIND_SERVICE and runs as 65532,
  # whose exec would lose the capability without the file's.
  r="$work/rootfs"
  mkdir -p "$r/etc/ssl/certs"
  install -d -m 1777 "$r/tmp"
  cp "$bin" "$r/coredns"
  setcap cap_net_bind_service=+ep "$r/coredns" || die "setcap on the image's /coredns failed (needs root)"
  cp /etc/ssl/certs/ca-certificates.crt "$r/etc/ssl/certs/"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$r/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' >"$r/etc/group"
  config='{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"]'
  config+=',"Entrypoint":["/coredns"],"User":"65532:65532","WorkingDir":"/","ExposedPorts":{"53/tcp":{},"53/udp":{}}}'
  write_archive "$r" "$image" "$config" "$out/coredns.tar" xattrs
  echo "$stamp" >"$out/.stamp"
fi
exec 9>&-
echo "$out"
