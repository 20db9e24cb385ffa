#!/usr/bin/env bash
# The test suite in lanes, as CI runs it (docs/testing.md has the times):
#
#   bash scripts/test.sh            # all: fast, then e2e, then cluster (what .ci/run runs)
#   bash scripts/test.sh fast       # npm run check, then unit, contract and integration tests
#   bash scripts/test.sh e2e        # test/e2e but the cluster files: a real containerd, dist/bunlet
#   bash scripts/test.sh cluster    # test/e2e/cluster on real control planes, the NodeConformance
#                                   # slice (scripts/conformance-slice.txt) and the cluster slice
#                                   # (scripts/conformance-cluster-slice.txt, two bunlet node hosts)
#   bash scripts/test.sh test/unit  # paths given to bun test as they are, in one run
#
# The e2e lane runs its files in two bun runs side by side; the e2e files that start a control
# plane of their own (network/hosts) run after them, or in `all` with the cluster lane's files that
# need one to themselves. `all` ends with unit and integration once more under load (one `yes` per
# core, at least two, all at the lowest CPU priority): a test that leans on timing fails there
# before it lands.
# Each lane first installs or builds what it needs, each a cheap check once warm (stamps, the
# binary caches; under a second each, `npm ci` in a fresh clone a few more): Debian and npm
# packages (scripts/install-deps.sh), the local images, dist/bunlet, and for the cluster lane the
# upstream Kubernetes binaries and metrics-server. Ends with one line "N passed, N failed" that
# counts every run of the lanes chosen (a failed check counts as one failure). Needs root (e2e
# tests start containerd).
#
# Environment:
#   LOADED_RERUN=0        `all` without the loaded rerun
#   CONFORMANCE_SLICE=0   the cluster lane without the two conformance slices
#   E2E_SHARDS=N          concurrent bun processes of the e2e lane (default 2)
#   CLUSTER_SHARDS=N      concurrent bun processes on the lane's shared control plane (default 2)
#   OWN_CP_SHARDS=N       concurrent bun processes for the files that need a control plane to
#                         themselves (they stop the apiserver or count its requests; default 2)
#   INSTALL_DEPS=0        skip scripts/install-deps.sh (a worktree sharing another's node_modules)
#   TEST_TIMEOUT_MS       bun test's per-test timeout (default 120000)
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

usage() { sed -n '4,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
lane=all
paths=()
if [ $# -gt 0 ]; then
  case "$1" in
    fast | e2e | cluster | all) lane=$1; [ $# -eq 1 ] || usage ;;
    -h | --help) usage ;;
    *) lane=paths; paths=("$@") ;;
  esac
fi
in_lane() { [ "$lane" = all ] || [ "$lane" = "$1" ]; }

fail_early() { echo "$1"; echo "0 passed, 1 failed"; exit 1; }
if [ "${INSTALL_DEPS:-1}" != "0" ]; then bash scripts/install-deps.sh || fail_early "install-deps failed"; fi
bash scripts/build-images.sh >/dev/null || fail_early "image build failed"
bash scripts/build.sh || fail_early "build failed"
if in_lane cluster || [ "$lane" = paths ]; then
  # The upstream control plane for the cluster tests: a cold build takes most of an hour on 2
  # cores, later runs reuse /var/cache/bunlet-k8s. metrics-server for `kubectl top`: a few minutes cold.
  bash scripts/k8s/build.sh >&2 || fail_early "k8s build failed"
  bash scripts/k8s/build-metrics-server.sh >&2 || fail_early "metrics-server build failed"
  # CoreDNS for the local clusters of node hosts (scripts/cluster.sh up --nodes): minutes cold.
  bash scripts/k8s/build-coredns.sh >&2 || fail_early "CoreDNS build failed"
fi

BUN=node_modules/.bin/bun
# A guard against hangs, not a speed limit: bun's default (5 s per test, and bunfig.toml cannot
# change it) failed slow e2e and contract steps on a busy machine, and a timed-out test has its
# child processes killed (a containerd, taking every later test in the file with it).
TEST_TIMEOUT_MS=${TEST_TIMEOUT_MS:-120000}
# Per-file durations that --shard balances by (bun test --timings; refresh as docs/testing.md says).
TIMINGS=test/timings.json
logs=$(mktemp -d "${TMPDIR:-/tmp}/bunlet-test-logs-XXXXXX")

total_passed=0
total_failed=0
failures=()
# Job control: each background job gets a process group of its own, which an interrupt ends whole.
set -m
declare -A job_pid=()
load_pids=()
shared_cluster=""

# Adds one bun test log's counts to the totals; a runner that failed without a failing test
# (a crash, a file that did not load) counts as one failure.
count_suite() { # log status
  local log=$1 status=$2 passed failed line
  passed=$(grep -E '^ *[0-9]+ pass$' "$log" | tail -1 | awk '{print $1}')
  failed=$(grep -E '^ *[0-9]+ fail$' "$log" | tail -1 | awk '{print $1}')
  # The failing tests' names, repeated at the very end: a CI log often shows only its tail.
  while IFS= read -r line; do failures+=("$line"); done < <(grep -E '^\(fail\) ' "$log")
  failure_reasons "$log" >>"$logs/reasons"
  passed=${passed:-0}
  failed=${failed:-0}
  if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1
    failures+=("(fail) $(basename "$log" .log): bun test exited $status without a failing test (see above)")
  fi
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
}

# Each failed test's name and the start of its error (bun prints the error above the "(fail)"
# line: a code excerpt, "error: ...", what the test added, the stack): the error line and the last
# lines of what followed it (a log tail ends there), for the end of the log, which is often all a
# CI shows.
failure_reasons() { # log
  awk '
    /^\((pass|skip|todo)\) / || /^test\/.*:$/ { n = 0; erred = 0; next }
    /^\(fail\) / {
      if (erred) {
        print $0
        print "    " substr(block[1], 1, 300)
        for (i = (n > 8 ? n - 6 : 2); i <= n; i++) print "    " substr(block[i], 1, 300)
      }
      n = 0; erred = 0; next
    }
    /^error: / { erred = 1 }
    erred && !/^ +at / && !/^$/ { block[++n] = $0 }
  ' "$1"
}

# A bun test run in the foreground, its output shown as it comes.
run_suite() { # name paths...
  local name=$1 log status
  shift
  log="$logs/$name.log"
  ( "$BUN" test --timeout "$TEST_TIMEOUT_MS" "$@" 2>&1 | tee "$log"; exit "${PIPESTATUS[0]}" ) &
  job_pid[$name]=$!
  wait "${job_pid[$name]}"
  status=$?
  unset "job_pid[$name]"
  count_suite "$log" "$status"
}

# Jobs that run side by side write to a log each, shown whole when the job is done.
start_job() { # name command...
  local name=$1
  shift
  "$@" >"$logs/$name.log" 2>&1 </dev/null &
  job_pid[$name]=$!
}
finish_job() { # name: waits, shows the log; returns the job's status
  local name=$1 status
  wait "${job_pid[$name]}"
  status=$?
  unset "job_pid[$name]"
  echo
  echo "== $name"
  cat "$logs/$name.log"
  return "$status"
}
finish_suite() { # name
  local status=0
  finish_job "$1" || status=$?
  count_suite "$logs/$1.log" "$status"
}
bun_shards() { # name shards env-assignments... -- files...: starts name-1..name-N
  local name=$1 shards=$2 i envs=()
  shift 2
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  for ((i = 1; i <= shards; i++)); do
    start_job "$name-$i" env "${envs[@]}" "$BUN" test --timeout "$TEST_TIMEOUT_MS" --pass-with-no-tests \
      --shard="$i/$shards" --timings="$TIMINGS" "$@"
  done
}

stop_load() {
  local pid
  for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${load_pids[@]}"; do wait "$pid" 2>/dev/null; done
  load_pids=()
}
stop_shared_cluster() {
  [ -n "$shared_cluster" ] || return 0
  bash scripts/cluster.sh down "$shared_cluster" >/dev/null 2>&1
  rm -rf "$shared_cluster"
  shared_cluster=""
}
cleanup() {
  stop_load
  stop_shared_cluster
  rm -rf "$logs"
}
interrupted() {
  local pid
  for pid in "${job_pid[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
  cleanup
  exit 130
}
trap cleanup EXIT
trap interrupted INT TERM

# --- fast: the quality gate, then unit, contract and integration tests --------------------------

fast_lane() {
  # tsc --noEmit, the Biome linter, the architecture and docs checks: bun runs TypeScript without
  # checking its types, so a type error would otherwise land unseen. Counted as one failed test.
  echo "== npm run check"
  if npm run --silent check; then
    echo "check: no type error, lint finding, architecture or docs problem"
  else
    total_failed=$((total_failed + 1))
    failures+=("(fail) npm run check: type errors, lint findings or architecture/docs problems (above)")
  fi
  echo "== unit, contract and integration tests"
  run_suite fast test/unit test/contract test/integration
}

# --- e2e: dist/bunlet and the runtime manager on real containerds ------------------------------

# The e2e files outside test/e2e/cluster that start a control plane of their own (network/hosts):
# in `all` they run with the cluster lane's own-control-plane files, which they are like, rather
# than in the busiest part of the run; the e2e lane alone runs them after its shards.
e2e_cp_files() { grep -lE 'startTestCluster|sharedTestCluster' $(find test/e2e -name '*.test.ts' -not -path 'test/e2e/cluster/*') | sort; }
e2e_files() { comm -23 <(find test/e2e -name '*.test.ts' -not -path 'test/e2e/cluster/*' | sort) <(e2e_cp_files); }

e2e_lane() {
  local shards=${E2E_SHARDS:-2} i files cp_files
  mapfile -t files < <(e2e_files)
  mapfile -t cp_files < <(e2e_cp_files)
  echo
  if [ "$lane" = all ]; then
    echo "== e2e: ${#files[@]} files in $shards concurrent runs (each file starts its own containerd); ${#cp_files[@]} that start a control plane run in the cluster lane"
  else
    echo "== e2e: ${#files[@]} files in $shards concurrent runs (each file starts its own containerd), then ${#cp_files[@]} that start a control plane"
  fi
  bun_shards e2e "$shards" -- "${files[@]}"
  for ((i = 1; i <= shards; i++)); do finish_suite "e2e-$i"; done
  if [ "$lane" != all ] && [ ${#cp_files[@]} -gt 0 ]; then
    echo "== e2e-control-plane"
    run_suite e2e-control-plane "${cp_files[@]}"
  fi
}

# --- cluster: real control planes, and the NodeConformance slice -------------------------------

# Files that need a control plane to themselves: they stop, freeze or restart kube-apiserver
# (they read its pid file) or count the requests it received (apiserver_request_total).
own_cp_files() { grep -lE 'kube-apiserver\.pid|apiserver_request_total' test/e2e/cluster/*.test.ts | sort; }
shared_cp_files() { comm -23 <(ls test/e2e/cluster/*.test.ts | sort) <(own_cp_files); }
# In `all`, the own-control-plane group takes the e2e files that start one too (e2e_cp_files).
own_cp_group() { { own_cp_files; [ "$lane" != all ] || e2e_cp_files; } | sort; }

# The specs of a slice file run by the upstream suite (scripts/conformance.sh) against dist/bunlet:
# scripts/conformance-slice.txt on one node (NodeConformance), scripts/conformance-cluster-slice.txt
# on a cluster of two bunlet node hosts (--cluster 2: DNS, Services across nodes, the 1.37
# projected sources, a webhook). Each passed spec counts as a passed test, each failed one (or one
# the run never reached) as a failed test.
declare -A slice_file=([conformance-slice]=scripts/conformance-slice.txt [cluster-slice]=scripts/conformance-cluster-slice.txt)
declare -A slice_title=([conformance-slice]="NodeConformance slice" [cluster-slice]="Cluster conformance slice")
declare -A slice_args=([conformance-slice]="" [cluster-slice]="--cluster 2")
declare -A slice_dir=([conformance-slice]=ci-slice [cluster-slice]=ci-cluster-slice)
slice_out() { echo ".tmp/conformance/${slice_dir[$1]}"; }
start_slice() { # name
  local name=$1 focus
  if ! bash scripts/k8s/build-e2e.sh >&2; then
    total_failed=$((total_failed + 1))
    failures+=("(fail) ${slice_title[$name]}: scripts/k8s/build-e2e.sh failed (above)")
    return 1
  fi
  focus=$(grep -vE '^(#|$)' "${slice_file[$name]}" | paste -sd'|')
  rm -rf "$(slice_out "$name")"
  # shellcheck disable=SC2086
  start_job "$name" bash scripts/conformance.sh ${slice_args[$name]} --focus "$focus" --out "$(slice_out "$name")"
}
finish_slice() { # name
  local name=$1 status=0 want counts passed failed line out
  out=$(slice_out "$name")
  want=$(grep -cvE '^(#|$)' "${slice_file[$name]}")
  finish_job "$name" || status=$?
  counts=$(awk '$1 == "total" { print $2, $3 }' "$out/summary.txt" 2>/dev/null)
  passed=${counts% *}
  failed=${counts#* }
  passed=${passed:-0}
  failed=${failed:-0}
  while IFS= read -r line; do failures+=("(fail) ${slice_title[$name]}: ${line#- }"); done < <(grep -E '^- \[' "$out/summary.txt" 2>/dev/null)
  # Specs that never ran (the run broke off, or a name no longer matches the suite) fail too.
  if [ $((passed + failed)) -lt "$want" ]; then
    failures+=("(fail) ${slice_title[$name]}: $((want - passed - failed)) of $want specs did not run (exit $status; see $out)")
    failed=$((want - passed))
  fi
  echo "${slice_title[$name]}: $passed passed, $failed failed of $want (logs in $out)"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
}

# Unit and integration once more with one `yes` per core (at least two) busy beside them, all at
# nice 19, at the end of `all`.
start_loaded_rerun() {
  local cores
  cores=$(nproc 2>/dev/null || echo 2)
  [ "$cores" -lt 2 ] && cores=2
  for _ in $(seq "$cores"); do
    nice -n 19 yes >/dev/null &
    load_pids+=("$!")
  done
  echo "== loaded-rerun: unit and integration again, $cores busy loops beside them (nice 19)"
  start_job loaded-rerun nice -n 19 "$BUN" test --timeout "$TEST_TIMEOUT_MS" test/unit test/integration
}

cluster_lane() {
  echo
  echo "== cluster: $(shared_cp_files | wc -l) files in ${CLUSTER_SHARDS:-2} runs on one shared control plane, $(own_cp_group | wc -l) in ${OWN_CP_SHARDS:-2} runs with a control plane each"
  # The shared control plane comes up first, so its kube-proxy owns the host's Service rules (one
  # kube-proxy per host, scripts/cluster.sh): the Service tests are among its files. A record in
  # it lets a later harness start stop it if this script is killed.
  shared_cluster=$(mktemp -d "${TMPDIR:-/tmp}/bunlet-cluster-lane-XXXXXX")
  printf '{"ownerPid":%d,"stopCommand":["bash","%s/scripts/cluster.sh","down","%s"]}\n' $$ "$repo" "$shared_cluster" >"$shared_cluster/bunlet-test-owner.json"
  if ! bash scripts/cluster.sh up "$shared_cluster" >"$logs/cluster-up.log" 2>&1; then
    cat "$logs/cluster-up.log"
    total_failed=$((total_failed + 1))
    failures+=("(fail) cluster lane: scripts/cluster.sh up failed (above); no cluster test ran")
    stop_shared_cluster
  else
    cluster_runs
  fi
}

# After the cluster lane, not beside it: beside it the rerun took twice as long and two of its
# wall-clock bounds failed (CVE-2019-11253's "refused within 1 s"): the lane leaves less CPU than
# its waiting suggests. Beside the e2e lane, two CPU-bound runs, it would leave less still.
loaded_rerun() {
  start_loaded_rerun
  finish_suite loaded-rerun
  stop_load
}

cluster_runs() {
  local shards=${CLUSTER_SHARDS:-2} own_shards=${OWN_CP_SHARDS:-2} i slice=0 shared own
  mapfile -t shared < <(shared_cp_files)
  mapfile -t own < <(own_cp_group)
  bun_shards cluster-shared "$shards" "BUNLET_TEST_CLUSTER=$shared_cluster" -- "${shared[@]}"
  bun_shards cluster-own "$own_shards" -- "${own[@]}"
  # The two slices one after the other, each beside the cluster files: together they would
  # leave the files too little of the machine.
  if [ "${CONFORMANCE_SLICE:-1}" != "0" ] && start_slice conformance-slice; then
    finish_slice conformance-slice
    start_slice cluster-slice && slice=1
  fi
  for ((i = 1; i <= shards; i++)); do finish_suite "cluster-shared-$i"; done
  for ((i = 1; i <= own_shards; i++)); do finish_suite "cluster-own-$i"; done
  [ "$slice" -eq 0 ] || finish_slice cluster-slice
  stop_shared_cluster
}

# -----------------------------------------------------------------------------------------------

start=$SECONDS
lap() { echo "== $1 took $((SECONDS - $2)) s"; }
case "$lane" in
  paths) run_suite paths "${paths[@]}" ;;
  *)
    if in_lane fast; then t=$SECONDS; fast_lane; lap "fast lane" "$t"; fi
    if in_lane e2e; then t=$SECONDS; e2e_lane; lap "e2e lane" "$t"; fi
    if in_lane cluster; then t=$SECONDS; cluster_lane; lap "cluster lane" "$t"; fi
    if [ "$lane" = all ] && [ "${LOADED_RERUN:-1}" != "0" ]; then t=$SECONDS; loaded_rerun; lap "loaded rerun" "$t"; fi
    ;;
esac

if [ ${#failures[@]} -gt 0 ]; then
  echo
  echo "== failed tests"
  # bun lists a file's failures again at the end of its run: each name once.
  printf '%s\n' "${failures[@]}" | awk '!seen[$0]++'
  if [ -s "$logs/reasons" ]; then
    echo
    echo "== why they failed (the whole error is above, in its lane's log)"
    cat "$logs/reasons"
  fi
fi
echo "== $lane: $((SECONDS - start)) s"
echo "${total_passed} passed, ${total_failed} failed"
[ "$total_failed" -eq 0 ]
