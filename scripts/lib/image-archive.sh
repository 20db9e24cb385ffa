# Sourced: writes a container image as a docker-archive tarball (`docker save`'s layout) from a
# root filesystem on disk, with no Docker engine: one layer, one config, manifest.json. Both
# `ctr images import` and `skopeo copy docker-archive:` read it. The output is reproducible: the
# same rootfs gives the same bytes (sorted names, owner 0, mtime 0).
#
#   write_archive ROOTFS TAG CONFIG_JSON DEST [xattrs]
#
# CONFIG_JSON is the image config's "config" object (Entrypoint, Cmd, Env, User, ...). With
# `xattrs` the layer keeps the files' security.capability (file capabilities set with setcap, as
# upstream's CoreDNS image has on /coredns), in POSIX pax headers with no atime or ctime.
# Temporary files go under $work when the caller set it, else $TMPDIR. Logs "TAG -> DEST" through
# the caller's log function when it has one.

write_archive() {
  local rootfs="$1" tag="$2" runconfig="$3" dest="$4" dir
  local -a format=(--format=gnu)
  if [ "${5:-}" = xattrs ]; then
    format=(--format=posix --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime
      --xattrs --xattrs-include=security.capability)
  fi
  dir="$(mktemp -d "${work:-${TMPDIR:-/tmp}}/archive.XXXXXX")"
  (cd "$rootfs" && find . -mindepth 1 -maxdepth 1 -printf '%P\n' | LC_ALL=C sort) |
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 "${format[@]}" -C "$rootfs" -cf "$dir/layer.tar" -T -
  local layer config script
  # the script that sourced this file, as the history's created_by (scripts/conformance-images.sh)
  script="$(realpath --relative-to="$(dirname "${BASH_SOURCE[0]}")/../.." "${BASH_SOURCE[-1]}")"
  layer="$(sha256sum "$dir/layer.tar" | cut -d' ' -f1)"
  mkdir -p "$dir/$layer" && mv "$dir/layer.tar" "$dir/$layer/layer.tar"
  printf '{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z","config":%s,"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"bunlet %s"}]}' \
    "$runconfig" "$layer" "$script" >"$dir/config.json"
  config="$(sha256sum "$dir/config.json" | cut -d' ' -f1)"
  mv "$dir/config.json" "$dir/$config.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]' "$config" "$tag" "$layer" >"$dir/manifest.json"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 --format=gnu -C "$dir" -cf "$dest.tmp" manifest.json "$config.json" "$layer"
  mv "$dest.tmp" "$dest"
  rm -rf "$dir"
  if declare -F log >/dev/null; then log "$tag -> $dest"; else echo "$tag -> $dest" >&2; fi
}
