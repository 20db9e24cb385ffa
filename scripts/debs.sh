#!/usr/bin/env bash
# Fetches a Debian package from another suite (trixie, sid) and unpacks it into a cache directory,
# without touching the system's apt setup: a private sources list, lists and archive cache under
# the cache dir, `apt-get download` and `dpkg -x`. Nothing is installed. A package already
# unpacked is reused as it is (no network); delete its directory to fetch the suite's current one.
#
#   scripts/debs.sh trixie containerd     # containerd 1.7 (GetContainerEvents)
#   scripts/debs.sh trixie etcd-server    # etcd 3.5 for scripts/cluster.sh
#   scripts/debs.sh sid containerd        # containerd 2.x
#
# The last line printed is the unpacked tree (binaries in its usr/bin). BUNLET_DEBS_CACHE moves
# the cache (default /var/cache/bunlet-debs).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 SUITE PACKAGE" >&2; exit 2; }
suite="$1" pkg="$2"
cache="${BUNLET_DEBS_CACHE:-/var/cache/bunlet-debs}"
tree="$cache/$suite/$pkg"
if [ -f "$tree/.version" ]; then echo "$tree"; exit 0; fi

mkdir -p "$cache"
exec 9>"$cache/.lock" # one fetch at a time: parallel test runs share the private apt state
flock 9
if [ -f "$tree/.version" ]; then echo "$tree"; exit 0; fi

# The archive the system already uses (deb822 .sources or one-line .list), else deb.debian.org.
mirror="$(
  { cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk 'tolower($1) == "uris:" { print $2 }'
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; break } }'
  } | grep -v -e security -e '^$' | grep -i debian | head -1
)" || true
mirror="${mirror:-http://deb.debian.org/debian}"
apt_dir="$cache/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
printf 'deb [signed-by=%s] %s %s main\n' "$keyring" "$mirror" "$suite" >"$apt_dir/$suite.list"
apt_opts=(-q -o APT::Sandbox::User=root -o "Dir::Etc::sourcelist=$apt_dir/$suite.list" -o Dir::Etc::sourceparts=-
  -o "Dir::State::Lists=$apt_dir/lists/$suite" -o "Dir::Cache=$apt_dir/cache")
mkdir -p "$apt_dir/lists/$suite/partial"

echo "debs.sh: fetching $pkg from $mirror $suite"
apt-get "${apt_opts[@]}" update >/dev/null
version="$(apt-cache "${apt_opts[@]}" show "$pkg" | awk '$1 == "Version:" { print $2; exit }')"
[ -n "$version" ] || { echo "debs.sh: $pkg not found in $suite" >&2; exit 1; }
work="$(mktemp -d "$cache/.fetch-XXXXXX")"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get "${apt_opts[@]}" download "$pkg=$version" >/dev/null)
deb="$(ls "$work"/*.deb)"
mkdir -p "$work/tree"
dpkg -x "$deb" "$work/tree"
printf '%s\n' "$version" >"$work/tree/.version"
mkdir -p "$cache/$suite"
rm -rf "$tree"
mv "$work/tree" "$tree"
echo "debs.sh: unpacked $pkg $version"
echo "$tree"
