#!/usr/bin/env bash
# Builds runc (github.com/opencontainers/runc, from its Go module) with seccomp into a cache keyed
# by the version, for hosts whose own runc is too old for user namespaces: `spec.hostUsers: false`
# needs idmapped mounts, which runc has from 1.2 (bookworm ships 1.1.5; trixie's and sid's .debs
# need glibc 2.38, so scripts/debs.sh cannot bring them to a bookworm host). libseccomp comes from
# the system's own libseccomp-dev .deb (`apt-get download`, unpacked, linked statically), so
# nothing is installed. Nothing already in the cache is made again.
#
#   scripts/build-runc.sh            # runc v1.3.7
#   scripts/build-runc.sh v1.3.7     # last line printed: the binary
#
# The userns e2e test (test/e2e/agent/userns.test.ts) runs containerd 2.x with it as its runc
# (the runc handler's BinaryName). See docs/userns.md. BUNLET_RUNC_CACHE moves the cache (default
# /var/cache/bunlet-runc).
set -euo pipefail
version="${1:-v1.3.7}"
out="${BUNLET_RUNC_CACHE:-/var/cache/bunlet-runc}/runc-$version"
bin="$out/runc"
log() { echo "build-runc: $*" >&2; }
die() { log "$*"; exit 1; }
mkdir -p "$out"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

if ! command -v go >/dev/null; then
  if [ -x /usr/local/go/bin/go ]; then PATH="/usr/local/go/bin:$PATH"; else die "go not found"; fi
fi

# One build at a time: a second caller waits, then finds it.
exec 9>"$out/.lock"
flock 9
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

work="$(mktemp -d "$out/.build-XXXXXX")"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

log "fetching libseccomp-dev (unpacked, not installed)"
(cd "$work" && apt-get -q -o APT::Sandbox::User=root download libseccomp-dev >/dev/null)
dpkg -x "$work"/libseccomp-dev_*.deb "$work/seccomp"
archive="$(find "$work/seccomp" -name libseccomp.a | head -1)"
[ -n "$archive" ] || die "libseccomp-dev has no libseccomp.a"
mkdir -p "$work/pkgconfig"
cat >"$work/pkgconfig/libseccomp.pc" <<EOF
Name: libseccomp
Description: libseccomp (unpacked from the system's libseccomp-dev)
Version: $(dpkg-deb -f "$work"/libseccomp-dev_*.deb Version | cut -d- -f1)
Cflags: -I$work/seccomp/usr/include
Libs: $archive
EOF

log "building runc $version ($(date +%T); about a minute on 2 cores)"
start=$SECONDS
export GOFLAGS=-mod=mod GOPATH="${GOPATH:-$HOME/go}"
go mod download "github.com/opencontainers/runc@$version"
src="$(go list -m -f '{{.Dir}}' "github.com/opencontainers/runc@$version" 2>/dev/null || true)"
[ -n "$src" ] || src="$GOPATH/pkg/mod/github.com/opencontainers/runc@$version"
cp -r "$src" "$work/runc"
chmod -R u+w "$work/runc"
# As runc's Makefile: BUILDTAGS "seccomp urfave_cli_no_docs", the version stamped (the module
# zip has no git commit, so `runc --version` says "commit: unknown").
(cd "$work/runc" && PKG_CONFIG_PATH="$work/pkgconfig" CGO_ENABLED=1 nice -n 19 go build -trimpath \
  -tags "seccomp urfave_cli_no_docs" \
  -ldflags "-X main.version=${version#v}" \
  -o "$out/.runc.tmp" .)
mv "$out/.runc.tmp" "$bin"
log "built $("$bin" --version | head -1) in $((SECONDS - start))s"
echo "$bin"
