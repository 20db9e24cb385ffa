#!/usr/bin/env bash
# The upstream Kubernetes NodeConformance suite against a node of this host: the tool a bunlet user
# runs to judge their node (as sonobuoy or hydrophone users do). docs/conformance.md says more.
#
#   scripts/conformance.sh [--kubelet | --node bunlet|kubelet] [--cluster N] [--focus RE] [--skip RE] [--focus-file RE] [--label-filter EXPR] [--nodes N] [--out DIR]
#
#   --cluster N       the certified-conformance selection (focus '\[Conformance\]', [Serial] specs
#                     included) on a cluster of N node hosts (scripts/cluster.sh up --nodes N: each
#                     a network namespace with its node agent, containerd and kube-proxy; CoreDNS);
#                     with --kubelet, the same on N kubelet nodes after the bunlet run
#   --kubelet         the same selection twice in this one run: on a dist/bunlet node, then on the
#                     upstream kubelet (scripts/k8s/build.sh kubelet), each with a fresh control
#                     plane and containerd; then both counts and which specs fail on bunlet only
#   --node KIND       one run with that node: bunlet (the default) or kubelet
#   --focus, --skip   ginkgo regexps on the spec's full name (repeatable in ginkgo; once here)
#   --focus-file      ginkgo's regexp on the spec's file, e.g. 'common/storage/' (a run per area)
#   --label-filter    default 'NodeConformance && !Slow && !Flaky'
#   --nodes           parallel ginkgo processes (default 3)
#   --out             JUnit (junit.xml), ginkgo's JSON report, the summary table and every log
#                     (default .tmp/conformance/<date>-<bunlet|kubelet|both>; with --kubelet one
#                     folder per node kind in it and the comparison in summary.txt)
#
# It builds or reuses e2e.test, ginkgo and the test images' programs (scripts/k8s/build-e2e.sh, ~20
# minutes cold), the test images (scripts/conformance-images.sh), the control plane
# (scripts/k8s/build.sh); starts a local registry holding the images, a control plane
# (scripts/cluster.sh), a containerd (scripts/lib/conformance-containerd.ts) and the node; runs
# the suite; prints passed/failed/skipped per area; and stops everything, on an interrupt too.
# Run it alone: other clusters' kube-proxy takes turns with ours (see scripts/cluster.sh), and the
# suite wants the machine. On a shared machine: flock /tmp/bunlet-e2e.lock bash scripts/conformance.sh
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { echo "conformance: $*" >&2; }
die() { log "$*"; exit 1; }
usage() { sed -n '5,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

kind=bunlet focus="" skip="" focus_file="" label='NodeConformance && !Slow && !Flaky' nodes=3 out="" cluster_nodes=0
label_given="" focus_given=""
selection=() # the options both runs of --kubelet share
while [ $# -gt 0 ]; do
  case "$1" in
    --kubelet) kind=both; shift ;;
    --node) [[ "${2:-}" =~ ^(bunlet|kubelet)$ ]] || usage; kind="$2"; shift 2 ;;
    --cluster) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || usage; cluster_nodes="$2"; selection+=("$1" "$2"); shift 2 ;;
    --focus) [ $# -ge 2 ] || usage; focus="$2" focus_given=1; selection+=("$1" "$2"); shift 2 ;;
    --skip) [ $# -ge 2 ] || usage; skip="$2"; selection+=("$1" "$2"); shift 2 ;;
    --focus-file) [ $# -ge 2 ] || usage; focus_file="$2"; selection+=("$1" "$2"); shift 2 ;;
    --label-filter) [ $# -ge 2 ] || usage; label="$2" label_given=1; selection+=("$1" "$2"); shift 2 ;;
    --nodes) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || usage; nodes="$2"; selection+=("$1" "$2"); shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) log "unknown argument $1"; usage ;;
  esac
done
if ((cluster_nodes > 0)); then
  # What a certified run selects (sonobuoy's certified-conformance mode, hydrophone --conformance).
  [ -n "$label_given" ] || label=""
  [ -n "$focus_given" ] || focus='\[Conformance\]'
fi
[ "$(id -u)" = 0 ] || die "needs root (containerd, mounts, bridges, iptables)"
out="${out:-$repo/.tmp/conformance/$(date +%Y%m%d-%H%M%S)-$kind}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
PATH="$PATH:/usr/local/go/bin:/usr/sbin:/sbin"
bun="$repo/node_modules/.bin/bun"
[ -x "$bun" ] || bun="$(command -v bun)" || die "bun not found (node_modules/.bin/bun or PATH)"

# --- --kubelet: the selection on a bunlet node, then on the kubelet, then the two compared --------
# Each node kind is a whole run of this script of its own (its own control plane, containerd and
# registry), so the second starts from nothing the first left; an interrupt stops the running one.
if [ "$kind" = both ]; then
  child=""
  trap '[ -z "$child" ] || kill -TERM "$child" 2>/dev/null; wait "$child" 2>/dev/null; exit 130' INT TERM
  for k in bunlet kubelet; do
    log "== the selection on a $k node (into $out/$k)"
    bash "${BASH_SOURCE[0]}" --node "$k" "${selection[@]}" --out "$out/$k" &
    child=$!
    wait "$child" || log "the $k run exited $?"
    child=""
  done
  [ -f "$out/bunlet/report.json" ] && [ -f "$out/kubelet/report.json" ] || die "a run wrote no report.json; see $out/*/ginkgo.log"
  "$bun" "$repo/scripts/lib/conformance-table.ts" "$out/bunlet/report.json" "$out/kubelet/report.json" | tee "$out/summary.txt"
  exit "${PIPESTATUS[0]}"
fi

# --- binaries and images (cached; a warm start takes seconds) -----------------------------------
log "building or reusing e2e.test, ginkgo, agnhost, nnp, pause (scripts/k8s/build-e2e.sh)"
e2e="$(bash "$repo/scripts/k8s/build-e2e.sh" | tail -1)"
if [ "$kind" = kubelet ]; then
  log "building or reusing the control plane and the kubelet (scripts/k8s/build.sh kubelet)"
  k8s="$(bash "$repo/scripts/k8s/build.sh" kubelet | tail -1)"
else
  log "building or reusing the control plane (scripts/k8s/build.sh)"
  k8s="$(bash "$repo/scripts/k8s/build.sh" | tail -1)"
fi
if [ "$kind" = bunlet ] && [ ! -x "$repo/dist/bunlet" ]; then bash "$repo/scripts/build.sh"; fi
bash "$repo/scripts/conformance-images.sh" build "$e2e" "$e2e/images"

# --- everything below is stopped by cleanup ------------------------------------------------------
work="$(mktemp -d /tmp/bunlet-conformance.XXXXXX)"
registry_pid="" containerd_pid="" node_pid="" cluster_up="" ginkgo_pid=""
# The node's --cgroup-root (cgroupRoot): a root of its own in every hierarchy, so that another
# bunlet or kubelet on this host (a test, a benchmark) never takes this node's pod cgroups for
# orphans and kills them, nor this node theirs; removed at the end.
cgroup_root="/$(basename "$work")"
cgroup_mounts() { awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup" || $(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo; }
stop_pid() { # pid, seconds: SIGTERM, then SIGKILL when it outlives the grace
  local pid="$1" i
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < $2 * 10; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e # every step of the teardown runs, whatever failed before it
  if [ -n "$ginkgo_pid" ] && kill -0 "$ginkgo_pid" 2>/dev/null; then
    # As a Ctrl-C does: SIGINT to ginkgo and its suite processes, which then run their cleanup
    # (the test namespaces) and write the reports; ginkgo alone would wait for the suite to end.
    log "interrupting ginkgo"
    kill -INT "$ginkgo_pid" $(pgrep -P "$ginkgo_pid") 2>/dev/null || true
    local i
    for ((i = 0; i < 600; i++)); do kill -0 "$ginkgo_pid" 2>/dev/null || break; sleep 0.1; done
    stop_pid "$ginkgo_pid" 5
  fi
  log "stopping the node, containerd, the cluster and the registry"
  stop_pid "$node_pid" 30
  stop_pid "$containerd_pid" 120 # it removes every pod sandbox and container first
  if [ -n "$cluster_up" ]; then
    cp -r "$work/cluster/logs" "$out/cluster-logs" 2>/dev/null || true
    bash "$repo/scripts/cluster.sh" down "$work/cluster" >/dev/null 2>&1 || log "cluster.sh down failed"
  fi
  stop_pid "$registry_pid" 10
  local m
  for m in $(cgroup_mounts); do
    if [ -d "$m$cgroup_root" ]; then find "$m$cgroup_root" -depth -type d -exec rmdir {} + 2>/dev/null; fi
  done
  # What a node leaves mounted under its root dir (secret and projected volumes are tmpfs).
  { grep -o " $work/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
  rm -rf "$work"
  log "logs, JUnit and the summary in $out"
  exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

listening() { ss -Htln | awk '{ n = split($4, a, ":"); print a[n] }' | grep -qx "$1"; }
free_port() { local p="$1"; while listening "$p"; do p=$((p + 1)); done; echo "$p"; }
wait_until() { # what, seconds, command...
  local what="$1" secs="$2" deadline=$((SECONDS + $2)); shift 2
  until "$@" >/dev/null 2>&1; do ((SECONDS < deadline)) || die "$what: not ready after ${secs}s"; sleep 0.5; done
}

# A local registry for the images. Not port 5000: the private-registry specs run agnhost's fake
# registry with hostNetwork on host port 5000.
start_registry() { # host:port
  registry="$1"
  mkdir -p "$work/registry"
  cat >"$work/registry/config.yml" <<EOF
version: 0.1
log: {level: warn, accesslog: {disabled: true}}
storage: {filesystem: {rootdirectory: $work/registry/data}}
http: {addr: $registry}
EOF
  setsid docker-registry serve "$work/registry/config.yml" >"$out/registry.log" 2>&1 </dev/null &
  registry_pid=$!
  wait_until "docker-registry on $registry" 30 curl -fsS "http://$registry/v2/"
  bash "$repo/scripts/conformance-images.sh" push "$e2e/images" "$registry" "$out/repo-list.yaml"
}
port="$(free_port "${CONFORMANCE_REGISTRY_PORT:-5055}")"
kubectl() { "$k8s/kubectl" --kubeconfig "$work/cluster/admin.kubeconfig" "$@"; }

if ((cluster_nodes > 0)); then
  # --cluster: the node hosts of scripts/cluster.sh (network namespaces on a bridge), which pull
  # from the registry on the bridge's address.
  log "starting the control plane and $cluster_nodes $kind nodes (scripts/cluster.sh up --nodes $cluster_nodes)"
  cluster_up=1
  bash "$repo/scripts/cluster.sh" up "$work/cluster" --nodes "$cluster_nodes" --node-kind "$kind" --registry-port "$port" 2>&1 | sed 's/^/  /' >&2
  [ "${PIPESTATUS[0]}" -eq 0 ] || die "cluster.sh up --nodes $cluster_nodes failed"
  start_registry "$(bash "$repo/scripts/cluster.sh" env "$work/cluster" | sed -n 's/^NODE_GATEWAY=//p'):$port"
else
start_registry "127.0.0.1:$port"

log "starting the control plane (scripts/cluster.sh up)"
cluster_up=1
bash "$repo/scripts/cluster.sh" up "$work/cluster" 2>&1 | sed 's/^/  /' >&2
[ "${PIPESTATUS[0]}" -eq 0 ] || die "cluster.sh up failed"

log "starting the node's containerd"
setsid "$bun" "$repo/scripts/lib/conformance-containerd.ts" "$registry" >"$work/containerd.out" 2>"$out/containerd-helper.log" </dev/null &
containerd_pid=$!
wait_until "the node's containerd" 180 grep -q '^endpoint=' "$work/containerd.out"
endpoint="$(sed -n 's/^endpoint=//p' "$work/containerd.out")"

for m in $(cgroup_mounts); do
  mkdir -p "$m$cgroup_root"
  for f in cpuset.cpus cpuset.mems; do # empty in a new cpuset cgroup: no task could join it
    if [ -f "$m$cgroup_root/$f" ] && [ -z "$(cat "$m$cgroup_root/$f")" ]; then cat "$m/$f" >"$m$cgroup_root/$f"; fi
  done
done

# The node is named after the host, as a kubelet's is: kube-proxy waits for that Node.
name="$(hostname | tr '[:upper:]' '[:lower:]')"
kcfg="$(bash "$repo/scripts/cluster.sh" node "$work/cluster" "$name" | tail -1)"
api_port="$(free_port 10250)"
healthz_port="$(free_port 10248)"
[ "$healthz_port" != "$api_port" ] || healthz_port="$(free_port $((api_port + 1)))"
mkdir -p "$work/node"
if [ "$kind" = bunlet ]; then
  log "starting dist/bunlet as node $name (kubelet API on :$api_port)"
  setsid "$repo/dist/bunlet" --kubeconfig "$kcfg" --hostname-override "$name" --root-dir "$work/node" \
    --container-runtime-endpoint "$endpoint" --client-ca-file "$work/cluster/client-ca.crt" \
    --cluster-domain cluster.local --port "$api_port" --healthz-port "$healthz_port" --read-only-port 0 \
    --cgroup-root "$cgroup_root" \
    >"$out/node.log" 2>&1 </dev/null &
else
  log "starting the upstream kubelet as node $name (kubelet API on :$api_port)"
  cat >"$work/node/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
containerRuntimeEndpoint: $endpoint
port: $api_port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $healthz_port
clusterDomain: cluster.local
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $work/cluster/client-ca.crt}
authorization: {mode: Webhook}
cgroupDriver: cgroupfs
# Pod and QoS cgroups under the run's own root, as bunlet's (both default to cgroupsPerQOS and
# enforceNodeAllocatable: [pods]).
cgroupRoot: $cgroup_root
failSwapOn: false
failCgroupV1: false
podLogsDir: $work/node/pod-logs
EOF
  setsid "$k8s/kubelet" --config "$work/node/config.yaml" --kubeconfig "$kcfg" --hostname-override "$name" \
    --root-dir "$work/node/kubelet" --cert-dir "$work/node/pki" --v=2 >"$out/node.log" 2>&1 </dev/null &
fi
node_pid=$!
wait_until "node $name Ready (see $out/node.log)" 180 kubectl wait --for=condition=Ready "node/$name" --timeout=5s
fi
kubectl get nodes -o wide >&2

log "running the suite: ginkgo --nodes=$nodes --label-filter='$label'${focus:+ --focus='$focus'}${skip:+ --skip='$skip'}${focus_file:+ --focus-file='$focus_file'} (log: $out/ginkgo.log)"
args=(--nodes="$nodes" --timeout=24h --no-color -v --seed=1 --label-filter="$label"
  --output-dir="$out" --json-report=report.json --junit-report=junit.xml)
[ -z "$focus" ] || args+=(--focus="$focus")
[ -z "$skip" ] || args+=(--skip="$skip")
[ -z "$focus_file" ] || args+=(--focus-file="$focus_file")
# A cluster run as kind's CI runs the suite (provider skeleton, the node count); one node as
# local-up-cluster's.
provider=(--provider=local)
((cluster_nodes == 0)) || provider=(--provider=skeleton --num-nodes="$cluster_nodes")
start=$SECONDS
rc=0
# In the background, so an interrupt reaches the traps at once rather than after the suite.
KUBE_TEST_REPO_LIST="$out/repo-list.yaml" "$e2e/ginkgo" "${args[@]}" "$e2e/e2e.test" -- \
  "${provider[@]}" --kubeconfig="$work/cluster/admin.kubeconfig" --disable-log-dump=true \
  --kubectl-path="$k8s/kubectl" --report-dir="$out/e2e" >"$out/ginkgo.log" 2>&1 </dev/null &
ginkgo_pid=$!
wait "$ginkgo_pid" || rc=$?
ginkgo_pid=""
log "ginkgo exited $rc after $((SECONDS - start)) s"
if [ -f "$out/report.json" ]; then
  "$bun" "$repo/scripts/lib/conformance-table.ts" "$out/report.json" | tee "$out/summary.txt" || true
else
  log "no report.json; the end of $out/ginkgo.log:"; tail -n 30 "$out/ginkgo.log" >&2
fi
