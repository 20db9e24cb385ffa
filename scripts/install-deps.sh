#!/usr/bin/env bash
# Installs what bunlet's build, tests and managed containerd need on Debian 12. Idempotent:
# installs only missing packages, runs `apt-get update` only when apt has no package lists or the
# install fails for want of fresh ones, and runs `npm ci` only when node_modules is missing or
# older than package-lock.json. The e2e tests' other containerd versions (trixie's 1.7, sid's 2.x)
# and the control plane's etcd (trixie's) are unpacked into /var/cache/bunlet-debs by
# scripts/debs.sh, not installed; the upstream Kubernetes binaries are built by scripts/test.sh.
# It starts no service: bunlet runs its own containerd and never uses /run/containerd/containerd.sock
# (Debian's containerd.service may start on install; harmless).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# prometheus: the observability cluster test runs it on a temp dir of its own (never the service).
packages=(containerd runc containernetworking-plugins busybox-static docker-registry skopeo iproute2 iptables openssl procps curl prometheus)

as_root=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null; then as_root=(sudo); else
    echo "install-deps: not root and no sudo; run as root" >&2
    exit 1
  fi
fi

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

apt_install() {
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
}

if ((${#missing[@]} > 0)); then
  echo "install-deps: installing ${missing[*]}"
  if ! compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null; then
    "${as_root[@]}" apt-get update -q
    apt_install "${missing[@]}"
  elif ! apt_install "${missing[@]}"; then
    echo "install-deps: install failed; refreshing package lists and retrying" >&2
    "${as_root[@]}" apt-get update -q
    apt_install "${missing[@]}"
  fi
else
  echo "install-deps: apt packages present (${packages[*]})"
fi

# npm writes node_modules/.package-lock.json on every install; older than the lock file = stale.
installed="$repo/node_modules/.package-lock.json"
if [[ ! -f "$installed" || "$repo/package-lock.json" -nt "$installed" || ! -x "$repo/node_modules/.bin/bun" || ! -x "$repo/node_modules/.bin/biome" ]]; then
  echo "install-deps: npm ci"
  (cd "$repo" && npm ci --no-audit --no-fund)
else
  echo "install-deps: node_modules up to date"
fi

# Other Debian suites' packages, unpacked beside the system's (instant once cached).
for suite_pkg in "trixie containerd" "sid containerd" "trixie etcd-server"; do
  # shellcheck disable=SC2086
  "${as_root[@]}" bash "$repo/scripts/debs.sh" $suite_pkg | tail -1 | sed "s|^|install-deps: $suite_pkg: |"
done
