# Sourced by scripts/conformance-images.sh: the images that [Conformance] specs outside the
# NodeConformance selection run (the whole suite on a cluster, issue 44), each from what this host
# can get: the static Go programs of scripts/k8s/build-e2e.sh, files of the k8s.io/kubernetes
# module and Debian packages. They use the caller's busybox_root, host_bin, write_archive, log,
# die and path_env, and are built after its own images with a stamp of their own.
#
#   kitten 1.8, nautilus 1.8  kubectl's Update Demo (nautilus) and the image-volume spec (kitten)
#   sample-apiserver 1.29.2   apimachinery/aggregator.go, beside etcd in the same pod
#   etcd 3.7.0-0              the sample-apiserver's storage (/usr/local/bin/etcd)

IMAGES+=(kitten:1.8 nautilus:1.8 sample-apiserver:1.29.2 etcd:3.7.0-0)

k8s_src() { # the k8s.io/kubernetes module's directory (test/images/...), as scripts/k8s/e2e pins it
  (cd "$repo/scripts/k8s/e2e" && PATH="$PATH:/usr/local/go/bin" GOFLAGS=-mod=mod go mod download -json k8s.io/kubernetes) |
    sed -n 's/.*"Dir": *"\([^"]*\)".*/\1/p'
}

etcd_tree() { # trixie's etcd-server unpacked (scripts/debs.sh, cached), as scripts/cluster.sh runs it
  local tree
  tree="$(bash "$repo/scripts/debs.sh" trixie etcd-server | tail -1)"
  [ -x "$tree/usr/bin/etcd" ] || die "no etcd in $tree (scripts/debs.sh trixie etcd-server)"
  echo "$tree"
}

bin_as() { # ROOT SRC DEST: the binary SRC at DEST in ROOT, with the host's libraries it loads
  local root="$1" src="$2" dest="$3" tmp
  tmp="$(mktemp -d "$work/bin.XXXXXX")"
  cp -L "$src" "$tmp/bin"
  host_bin "$root" "$tmp/bin"
  mkdir -p "$root$(dirname "$dest")"
  mv "$root$tmp/bin" "$root$dest"
  rm -rf "${root:?}$work" "$tmp"
}

# kitten and nautilus: upstream's are the agnhost image with <name>.jpg and data.json ({"image":
# "<name>.jpg"}) in / and CMD test-webserver, which serves / on port 80. kubectl's Update Demo
# reads data.json through the pod proxy; the image-volume spec mounts kitten and reads its
# data.json and etc/os-release, expecting "Alpine Linux" (upstream's base), so os-release says so.
build_update_demo() { # NAME BIN OUT SRC
  local name="$1" bin="$2" out="$3" src="$4" r="$work/$1"
  busybox_root "$r"
  cp "$bin/agnhost" "$r/agnhost" && ln -s agnhost "$r/agnhost-2"
  install -m 0644 "$src/test/images/$name/html/$name.jpg" "$src/test/images/$name/html/data.json" "$r/"
  cat >"$r/etc/os-release" <<'EOF'
NAME="Alpine Linux"
ID=alpine
PRETTY_NAME="Alpine Linux (bunlet's stand-in: Debian busybox and the static agnhost, as in upstream's Alpine-based image)"
HOME_URL="https://alpinelinux.org/"
EOF
  write_archive "$r" "$name:1.8" "{$path_env,\"Entrypoint\":[\"/agnhost\"],\"Cmd\":[\"test-webserver\"],\"ExposedPorts\":{\"80/tcp\":{}}}" \
    "$out/${name}_1.8.tar"
}

# sample-apiserver: upstream's is Alpine plus /sample-apiserver (k8s.io/sample-apiserver), the
# entrypoint; the spec passes --etcd-servers, the TLS files and audit flags, and probes
# https://:443/readyz (the generic apiserver's default secure port).
build_sample_apiserver() { # BIN OUT
  local r="$work/sample-apiserver"
  busybox_root "$r"
  cp "$1/sample-apiserver" "$r/sample-apiserver"
  write_archive "$r" sample-apiserver:1.29.2 "{$path_env,\"Entrypoint\":[\"/sample-apiserver\"]}" "$2/sample-apiserver_1.29.2.tar"
}

# etcd: upstream's (registry.k8s.io/etcd) is distroless with etcd, etcdctl and etcdutl in
# /usr/local/bin; the spec runs /usr/local/bin/etcd --listen-client-urls ... --advertise-client-urls.
build_etcd() { # ETCD_TREE OUT
  local r="$work/etcd" tool
  busybox_root "$r"
  for tool in etcd etcdutl; do bin_as "$r" "$1/usr/bin/$tool" "/usr/local/bin/$tool"; done
  write_archive "$r" etcd:3.7.0-0 "{$path_env,\"Cmd\":[\"/usr/local/bin/etcd\"],\"ExposedPorts\":{\"2379/tcp\":{},\"2380/tcp\":{}}}" \
    "$2/etcd_3.7.0-0.tar"
}

build_conformance_images() { # BIN OUT: the images above, rebuilt when an input changes
  local bin="$1" out="$2" etcd src stamp
  [ -x "$bin/sample-apiserver" ] || die "$bin/sample-apiserver missing; run scripts/k8s/build-e2e.sh"
  etcd="$(etcd_tree)"
  src="$(k8s_src)"
  [ -d "$src/test/images/kitten" ] || die "no k8s.io/kubernetes module source (go mod download in scripts/k8s/e2e)"
  stamp="$( { sha256sum "$bin/agnhost" "$bin/sample-apiserver" "$etcd/usr/bin/etcd" /bin/busybox \
    "${BASH_SOURCE[0]}" | cut -d' ' -f1; } | sha256sum | cut -d' ' -f1)"
  if [ "$(cat "$out/.stamp-conformance" 2>/dev/null)" = "$stamp" ]; then log "[Conformance] images up to date in $out"; return 0; fi
  if [ -z "${work:-}" ]; then
    work="$(mktemp -d "${TMPDIR:-/tmp}/bunlet-conformance-images.XXXXXX")"
    trap 'rm -rf "$work"' EXIT
  fi
  build_update_demo kitten "$bin" "$out" "$src"
  build_update_demo nautilus "$bin" "$out" "$src"
  build_sample_apiserver "$bin" "$out"
  build_etcd "$etcd" "$out"
  echo "$stamp" >"$out/.stamp-conformance"
}
