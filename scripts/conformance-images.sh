#!/usr/bin/env bash
# The test images the upstream [Conformance] specs ask for (NodeConformance's here, the rest in
# scripts/lib/conformance-image-builders.sh), built on this host without a Docker
# engine or a network registry, as docker-archive tarballs; then pushed to a local registry with
# skopeo and the KUBE_TEST_REPO_LIST file written that points the suite at it.
#
#   scripts/conformance-images.sh build E2E_BIN OUT     # tarballs into OUT (kept while up to date)
#   scripts/conformance-images.sh push OUT REGISTRY LIST  # push them to REGISTRY (host:port, plain
#                                                       # http), write the KUBE_TEST_REPO_LIST file LIST
#
# E2E_BIN is scripts/k8s/build-e2e.sh's cache dir (agnhost, nnp, pause, sample-apiserver). What
# each image is made of (the upstream images are Alpine or Debian bases with packages; these are
# the nearest this host gives without a package manager in a container):
#   busybox 1.37.0-2, 1.36.1-1  Debian busybox-static, every applet linked in /bin as upstream has them,
#                           and the host's bash as /bin/sh (busybox's sh drops env names with `-`)
#   agnhost 2.66.1, 2.55    that busybox plus the static agnhost, the host's curl, ip and bash with
#                           the libraries they load, Debian's OpenBSD netcat as /usr/bin/nc
#                           (apt-get download), dig, nslookup, host and getent as in
#                           glibc-dns-testing (upstream's has Alpine's bind-tools), porter's
#                           certificate, the user and group the upstream image defines, and
#                           /var/registry holding pause:testing for agnhost's fake-registry-server
#                           (upstream's prepare_registry.sh)
#   glibc-dns-testing 2.1.1 that busybox plus the host's dash as /bin/sh, glibc hostname and getent
#                           with NSS modules (busybox-static cannot resolve through NSS, and its sh
#                           runs its own applets first: `hostname -f` needs glibc)
#                           and dig, nslookup and host (Debian's bind9-dnsutils, apt-get download:
#                           the DNS specs' probes; upstream's image, formerly jessie-dnsutils, has them)
#   nginx 1.27.0-2, 1.28.0-2  Debian bookworm's nginx (apt-get download) serving port 80
#   nonewprivs 1.4          busybox plus /usr/local/bin/nnp, setuid root as upstream
#   nonroot 1.5             busybox with USER 1234
#   pause 3.10.2            build/pause/linux/pause.c, static
# and, for the specs beyond NodeConformance (scripts/lib/conformance-image-builders.sh):
#   kitten 1.8, nautilus 1.8  busybox, the static agnhost (CMD test-webserver, port 80) and the
#                           module's test/images/<name>/html files (<name>.jpg, data.json) in /
#   sample-apiserver 1.29.2 busybox plus /sample-apiserver, k8s.io/sample-apiserver v0.37.2 (build-e2e.sh)
#   etcd 3.7.0-0            busybox plus trixie's etcd 3.5 (scripts/debs.sh) as /usr/local/bin/etcd
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { echo "conformance-images: $*" >&2; }
die() { log "$*"; exit 1; }
# write_archive ROOTFS TAG CONFIG_JSON DEST: a docker-archive tarball from a rootfs
source "$repo/scripts/lib/image-archive.sh"

path_env='"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]'
# name:tag, the tarball's file name, as the suite asks for them (e2e.test --list-images).
IMAGES=(busybox:1.37.0-2 busybox:1.36.1-1 agnhost:2.66.1 agnhost:2.55 glibc-dns-testing:2.1.1 nginx:1.27.0-2
  nginx:1.28.0-2 nonewprivs:1.4 nonroot:1.5 pause:3.10.2)
# build_conformance_images: kitten, nautilus, sample-apiserver and etcd, added to IMAGES
source "$repo/scripts/lib/conformance-image-builders.sh"

# --- rootfs helpers -----------------------------------------------------------------------------

busybox_root() { # DIR: Debian's static busybox with every applet a link in /bin
  local root="$1" bb=/bin/busybox
  LC_ALL=C readelf -l "$bb" 2>/dev/null | grep -q INTERP && die "$bb is not static; install busybox-static"
  mkdir -p "$root"/{bin,etc,dev,proc,sys,root,var,run,usr/bin,usr/sbin}
  install -d -m 1777 "$root/tmp"
  cp "$bb" "$root/bin/busybox"
  local applet
  for applet in $("$bb" --list); do [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"; done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
}

host_bin() { # DIR BINARY...: the host's binaries at the same paths, with every library they load
  local root="$1" bin lib; shift
  for bin in "$@"; do
    [ -e "$bin" ] || die "$bin is missing on this host"
    mkdir -p "$root$(dirname "$bin")"
    rm -f "$root$bin"
    cp -L "$bin" "$root$bin"
    for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
      mkdir -p "$root$(dirname "$lib")"
      [ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
    done
  done
}

# --- the images ---------------------------------------------------------------------------------

# /var/registry as agnhost's fake-registry-server reads it: <image>/manifests/<tag> holds a digest,
# manifests and blobs live at <sha256>/<2 hex>/<hash>/data.
fake_registry() { # ROOT PAUSE_TAR
  local root="$1" dir="$work/pause-dir" f hash
  # The dir: transport keeps the archive's Docker v2s2 manifest, whose mediaType the server sends.
  skopeo copy -q "docker-archive:$2" "dir:$dir" >/dev/null
  local reg="$root/var/registry/pause"
  for f in "$dir"/*; do
    hash="$(basename "$f")"
    [[ "$hash" =~ ^[0-9a-f]{64}$ ]] || continue
    mkdir -p "$reg/blobs/sha256/${hash:0:2}/$hash" && cp "$f" "$reg/blobs/sha256/${hash:0:2}/$hash/data"
  done
  hash="$(sha256sum "$dir/manifest.json" | cut -d' ' -f1)"
  mkdir -p "$reg/manifests/sha256/${hash:0:2}/$hash" && cp "$dir/manifest.json" "$reg/manifests/sha256/${hash:0:2}/$hash/data"
  echo "sha256:$hash" >"$reg/manifests/testing"
}

# dig, nslookup and host (Debian's bind9-dnsutils and bind9-host, apt-get download, with bind9-libs
# and the libraries they load that this host has not installed) and glibc's getent with its NSS
# modules, into each ROOT: the DNS specs' probes run `dig +notcp|+tcp +noall +answer +search NAME`
# and `getent hosts NAME` in agnhost (upstream: Alpine's bind-tools) and glibc-dns-testing
# (upstream: Debian's dnsutils), and the Service jig runs nslookup.
dns_tools_into() { # ROOT...
  local stage="$work/dnstools" deb dep lib root bin
  if [ ! -d "$stage/root" ]; then
    local pkgs=(bind9-dnsutils bind9-host bind9-libs)
    for dep in $(apt-cache depends "${pkgs[@]}" | awk '$1 == "Depends:" && $2 !~ /^</ { print $2 }' | sort -u); do
      dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q "install ok installed" || pkgs+=("$dep")
    done
    mkdir -p "$stage/debs"
    (cd "$stage/debs" && apt-get download -q "${pkgs[@]}" >/dev/null 2>&1) || die "apt-get download ${pkgs[*]} failed"
    for deb in "$stage"/debs/*.deb; do dpkg-deb -x "$deb" "$stage/root"; done
  fi
  local libpath
  libpath="$(printf '%s:' "$stage"/root/usr/lib/*-linux-gnu "$stage"/root/lib/*-linux-gnu)"
  for root in "$@"; do
    for bin in /usr/bin/dig /usr/bin/nslookup /usr/bin/host; do
      [ -x "$stage/root$bin" ] || die "$bin is not in the downloaded bind9 packages"
      if LD_LIBRARY_PATH="$libpath" ldd "$stage/root$bin" | grep -q 'not found'; then
        die "$bin needs libraries neither this host nor the downloaded packages have: $(LD_LIBRARY_PATH="$libpath" ldd "$stage/root$bin" | grep 'not found' | tr -s ' \t\n' ' ')"
      fi
      mkdir -p "$root/usr/bin" && cp "$stage/root$bin" "$root$bin"
      for lib in $(LD_LIBRARY_PATH="$libpath" ldd "$stage/root$bin" | grep -o '/[^ ]*'); do
        local dest="${lib#"$stage/root"}"
        mkdir -p "$root$(dirname "$dest")"
        [ -e "$root$dest" ] || cp -L "$lib" "$root$dest"
      done
    done
    host_bin "$root" /usr/bin/getent /lib/x86_64-linux-gnu/libnss_files.so.2 /lib/x86_64-linux-gnu/libnss_dns.so.2
  done
}

cmd_build() {
  local bin="$1" out="$2"
  for f in agnhost nnp pause; do [ -x "$bin/$f" ] || die "$bin/$f missing; run scripts/k8s/build-e2e.sh"; done
  mkdir -p "$out"
  exec 9>"$out/.lock"; flock 9
  local stamp
  stamp="$( { sha256sum "$bin/agnhost" "$bin/nnp" "$bin/pause" /bin/busybox "${BASH_SOURCE[0]}" \
    "$repo/scripts/lib/image-archive.sh" | cut -d' ' -f1; } | sha256sum | cut -d' ' -f1)"
  if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then log "up to date in $out"; return 0; fi
  work="$(mktemp -d "${TMPDIR:-/tmp}/bunlet-conformance-images.XXXXXX")"
  trap 'rm -rf "$work"' EXIT

  local r="$work/pause"
  mkdir -p "$r" && cp "$bin/pause" "$r/pause"
  write_archive "$r" pause:3.10.2 '{"Entrypoint":["/pause"],"User":"65535:65535"}' "$out/pause_3.10.2.tar"

  r="$work/busybox"; busybox_root "$r"
  # Debian's busybox sh (and dash) drop environment names that are not shell identifiers
  # (`data-1`, which the envFrom specs set and read back with `sh -c env`); bash keeps them.
  host_bin "$r" "$(readlink -f /bin/bash)"
  ln -sfn "$(readlink -f /bin/bash)" "$r/bin/sh"
  # Specs run /bin/bash by that path; upstream's image has it there.
  ln -sfn "$(readlink -f /bin/bash)" "$r/bin/bash"
  write_archive "$r" busybox:1.37.0-2 "{$path_env,\"Cmd\":[\"sh\"]}" "$out/busybox_1.37.0-2.tar"
  cp "$out/busybox_1.37.0-2.tar" "$out/busybox_1.36.1-1.tar"

  r="$work/nonroot"; busybox_root "$r"
  write_archive "$r" nonroot:1.5 "{$path_env,\"Cmd\":[\"sh\"],\"User\":\"1234\"}" "$out/nonroot_1.5.tar"

  r="$work/nonewprivs"; busybox_root "$r"
  mkdir -p "$r/usr/local/bin" && cp "$bin/nnp" "$r/usr/local/bin/nnp" && chmod 4755 "$r/usr/local/bin/nnp"
  write_archive "$r" nonewprivs:1.4 "{$path_env,\"Cmd\":[\"nnp\"]}" "$out/nonewprivs_1.4.tar"

  r="$work/glibc"; busybox_root "$r"
  # Debian's busybox sh runs its own applets before PATH (standalone shell), so its `hostname`
  # would answer; dash as /bin/sh, as on Debian, runs the glibc one.
  rm -f "$r/bin/hostname" "$r/bin/sh"
  host_bin "$r" "$(readlink -f /bin/dash)" "$(readlink -f /bin/hostname)" /usr/bin/getent \
    /lib/x86_64-linux-gnu/libnss_files.so.2 /lib/x86_64-linux-gnu/libnss_dns.so.2
  ln -s "$(readlink -f /bin/dash)" "$r/bin/sh"
  [ -e "$r/bin/hostname" ] || ln -s "$(readlink -f /bin/hostname)" "$r/bin/hostname"
  dns_tools_into "$r"
  write_archive "$r" glibc-dns-testing:2.1.1 "{$path_env,\"Cmd\":[\"sh\"]}" "$out/glibc-dns-testing_2.1.1.tar"

  r="$work/agnhost"; busybox_root "$r"
  host_bin "$r" /usr/bin/curl "$(readlink -f /usr/sbin/ip)" "$(readlink -f /bin/bash)"
  dns_tools_into "$r"
  # OpenBSD netcat as /usr/bin/nc, ahead of busybox's in PATH, as upstream's image has it: the
  # node-pod UDP spec runs `nc -w 1 -u`, and Debian's busybox nc has no -u.
  (cd "$work" && apt-get download -q netcat-openbsd >/dev/null 2>&1) || die "apt-get download netcat-openbsd failed"
  dpkg -x "$work"/netcat-openbsd_*.deb "$work/netcat-deb"
  cp "$work/netcat-deb/bin/nc.openbsd" "$work/nc.bin"
  host_bin "$r" "$work/nc.bin" && mv "$r$work/nc.bin" "$r/usr/bin/nc" && rm -rf "${r:?}$work"
  # Debian's busybox sh runs its own applets before PATH (a standalone shell), so `nc` would still
  # be busybox's: bash as /bin/sh looks in PATH, as upstream's (Alpine) sh does.
  ln -sfn "$(readlink -f /bin/bash)" "$r/bin/sh"
  # Specs run /bin/bash by that path; upstream's image has it there.
  ln -sfn "$(readlink -f /bin/bash)" "$r/bin/bash"
  cp "$bin/agnhost" "$r/agnhost" && ln -s agnhost "$r/agnhost-2"
  local src
  src="$(cd "$repo/scripts/k8s/e2e" && GOFLAGS=-mod=mod go mod download -json k8s.io/kubernetes | sed -n 's/.*"Dir": *"\([^"]*\)".*/\1/p')"
  cp "$src/test/images/agnhost/porter/localhost.crt" "$src/test/images/agnhost/porter/localhost.key" "$r/"
  mkdir -p "$r/uploads"
  echo 'user-defined-in-image:x:1000:1000::/home/user-defined-in-image:/bin/sh' >>"$r/etc/passwd"
  printf 'user-defined-in-image:x:1000:\ngroup-defined-in-image:x:50000:user-defined-in-image\n' >>"$r/etc/group"
  fake_registry "$r" "$out/pause_3.10.2.tar"
  write_archive "$r" agnhost:2.66.1 "{$path_env,\"Entrypoint\":[\"/agnhost\"],\"Cmd\":[\"pause\"]}" "$out/agnhost_2.66.1.tar"
  cp "$out/agnhost_2.66.1.tar" "$out/agnhost_2.55.tar"

  r="$work/nginx"; busybox_root "$r"
  (cd "$work" && apt-get download -q nginx >/dev/null 2>&1) || die "apt-get download nginx failed"
  dpkg -x "$work"/nginx_*.deb "$work/nginx-deb"
  mkdir -p "$r/usr/sbin" && cp "$work/nginx-deb/usr/sbin/nginx" "$work/nginx.bin"
  host_bin "$r" "$work/nginx.bin" && mv "$r$work/nginx.bin" "$r/usr/sbin/nginx" && rm -rf "${r:?}$work"
  mkdir -p "$r/etc/nginx" "$r/var/log/nginx" "$r/var/lib/nginx" "$r/usr/share/nginx/html"
  echo '<h1>Welcome to nginx!</h1>' >"$r/usr/share/nginx/html/index.html"
  printf 'nginx:x:101:101::/nonexistent:/bin/false\n' >>"$r/etc/passwd"; printf 'nginx:x:101:\n' >>"$r/etc/group"
  cat >"$r/etc/nginx/nginx.conf" <<'EOF'
user nginx;
worker_processes 1;
error_log /dev/stderr;
pid /run/nginx.pid;
events { worker_connections 1024; }
http {
  access_log /dev/stdout;
  server { listen 80; root /usr/share/nginx/html; }
}
EOF
  write_archive "$r" nginx:1.28.0-2 "{$path_env,\"Cmd\":[\"nginx\",\"-g\",\"daemon off;\"],\"ExposedPorts\":{\"80/tcp\":{}}}" "$out/nginx_1.28.0-2.tar"
  cp "$out/nginx_1.28.0-2.tar" "$out/nginx_1.27.0-2.tar"

  echo "$stamp" >"$out/.stamp"
}

cmd_push() {
  local out="$1" reg="$2" list="$3" image
  for image in "${IMAGES[@]}"; do
    local path="e2e-test-images/$image"
    case "${image%%:*}" in pause | etcd) path="$image" ;; esac # gc(Etcd)Registry: registry.k8s.io/<name>
    skopeo copy -q --dest-tls-verify=false "docker-archive:$out/${image/:/_}.tar" "docker://$reg/$path" >/dev/null ||
      die "skopeo copy of $image to $reg failed"
  done
  # Every registry the suite may name points at the local one, but invalidRegistry (a spec
  # expects its pulls to fail) and privateRegistry (the "without secret" specs must fail to pull).
  cat >"$list" <<EOF
promoterE2eRegistry: $reg/e2e-test-images
e2eRegistry: $reg/e2e-test-images
buildImageRegistry: $reg/build-image
gcEtcdRegistry: $reg
gcRegistry: $reg
sigStorageRegistry: $reg/sig-storage
gcAuthenticatedRegistry: $reg/authenticated
dockerLibraryRegistry: $reg/library
cloudProviderGcpRegistry: $reg/cloud-provider-gcp
microsoftRegistry: $reg/microsoft
EOF
  log "pushed ${#IMAGES[@]} images to $reg; KUBE_TEST_REPO_LIST=$list"
}

case "${1:-}" in
  build) [ $# -eq 3 ] || die "usage: $0 build E2E_BIN OUT"; cmd_build "$2" "$3"; build_conformance_images "$2" "$3" ;;
  push) [ $# -eq 4 ] || die "usage: $0 push OUT REGISTRY LIST"; cmd_push "$2" "$3" "$4" ;;
  *) die "usage: $0 build E2E_BIN OUT | push OUT REGISTRY LIST" ;;
esac
