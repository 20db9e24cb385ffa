#!/usr/bin/env bash
# Builds the two images bunlet's tests need, with no network, as docker-archive tarballs:
#   docker.io/library/busybox:1.36  -> busybox.tar  (busybox-static with its applets as symlinks)
#   registry.k8s.io/pause:3.10.2    -> pause.tar    (/pause: sleeps until SIGTERM/SIGINT; the name is
#                                      bunlet's default sandbox image, src/containerd/config.ts PAUSE_IMAGE)
# Both `ctr images import` and `skopeo copy docker-archive:` accept them.
# Usage: scripts/build-images.sh [OUTDIR]   (default .tmp/images; skips work when up to date)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$repo/.tmp/images}"
busybox_bin="${BUSYBOX:-/bin/busybox}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

if ! file_out="$(LC_ALL=C readelf -l "$busybox_bin" 2>/dev/null)" || grep -q INTERP <<<"$file_out"; then
  echo "build-images: $busybox_bin is missing or not statically linked; run scripts/install-deps.sh (busybox-static)" >&2
  exit 1
fi

case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64) arch=arm64 ;;
  armv7l) arch=arm ;;
  *) arch="$(uname -m)" ;;
esac

# Parallel test processes may all find the tarballs missing; one builds, the others wait.
exec 9>"$out/.lock"
flock 9

# The stamp covers everything an image is made of; equal stamps mean nothing to do.
stamp="$( { sha256sum "$busybox_bin" "${BASH_SOURCE[0]}" | cut -d' ' -f1; echo "$arch"; } | sha256sum | cut -d' ' -f1)"
if [[ -f "$out/busybox.tar" && -f "$out/pause.tar" && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then
  echo "build-images: up to date in $out"
  exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/bunlet-images.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# make_rootfs DIR: /bin/busybox plus the minimum a container expects to find.
make_rootfs() {
  local root="$1"
  mkdir -p "$root"/{bin,etc,dev,proc,sys,root,var,run}
  install -d -m 1777 "$root/tmp"
  cp "$busybox_bin" "$root/bin/busybox"
  chmod 0755 "$root/bin/busybox"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
}

# write_archive ROOTFS TAG CONFIG_JSON_FRAGMENT OUTFILE: one layer, one config, manifest.json.
write_archive() {
  local rootfs="$1" tag="$2" runconfig="$3" dest="$4"
  local dir="$work/archive.$(basename "$dest" .tar)"
  mkdir -p "$dir"
  # Reproducible layer: sorted names, fixed owner and mtime.
  # Entries are named bin/..., not ./bin/..., as docker writes them.
  (cd "$rootfs" && find . -mindepth 1 -maxdepth 1 -printf '%P\n' | LC_ALL=C sort) |
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 --format=gnu \
      -C "$rootfs" -cf "$dir/layer.tmp" -T -
  local layer_sha
  layer_sha="$(sha256sum "$dir/layer.tmp" | cut -d' ' -f1)"
  mkdir -p "$dir/$layer_sha"
  mv "$dir/layer.tmp" "$dir/$layer_sha/layer.tar"
  printf '{"architecture":"%s","os":"linux","created":"1970-01-01T00:00:00Z","config":%s,"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"bunlet scripts/build-images.sh"}]}' \
    "$arch" "$runconfig" "$layer_sha" >"$dir/config.tmp"
  local config_sha
  config_sha="$(sha256sum "$dir/config.tmp" | cut -d' ' -f1)"
  mv "$dir/config.tmp" "$dir/$config_sha.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' \
    "$config_sha" "$tag" "$layer_sha" >"$dir/manifest.json"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 --format=gnu \
    -C "$dir" -cf "$dest.tmp" manifest.json "$config_sha.json" "$layer_sha"
  mv "$dest.tmp" "$dest"
  echo "build-images: $tag -> $dest (config sha256:$config_sha)"
}

path_env='"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]'

# busybox: every applet as a symlink to /bin/busybox.
bb="$work/busybox"
make_rootfs "$bb"
"$busybox_bin" --install -s "$bb/bin"
# --install links to the running binary's path; make the links point inside the image.
for link in "$bb"/bin/*; do
  [[ -L "$link" ]] && ln -sfn /bin/busybox "$link"
done
write_archive "$bb" "docker.io/library/busybox:1.36" "{$path_env,\"Cmd\":[\"sh\"]}" "$out/busybox.tar"

# pause: PID 1 of every pod sandbox. A shell as PID 1 only sees signals it traps, so it traps
# TERM and INT and exits 0; `wait` returns as soon as a trapped signal arrives.
pz="$work/pause"
make_rootfs "$pz"
ln -s busybox "$pz/bin/sh"
ln -s busybox "$pz/bin/sleep"
cat >"$pz/pause" <<'PAUSE'
#!/bin/sh
trap 'exit 0' TERM INT
while :; do
  sleep 3600 &
  wait $!
done
PAUSE
chmod 0755 "$pz/pause"
write_archive "$pz" "registry.k8s.io/pause:3.10.2" "{$path_env,\"Entrypoint\":[\"/pause\"]}" "$out/pause.tar"

echo "$stamp" >"$out/.stamp"
