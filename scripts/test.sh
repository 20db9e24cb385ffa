#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what is missing (Debian packages, npm packages),
# builds the local images, dist/bunlet and the upstream Kubernetes binaries (scripts/k8s/build.sh
# and build-metrics-server.sh, cached), runs the quality gate (npm run check), then unit, contract,
# integration and e2e tests, and then unit and integration once more with every core kept busy
# (see "under load" below), and with everything also a fixed slice of the upstream NodeConformance
# suite against a bunlet node (scripts/conformance-slice.txt; its e2e.test built by
# scripts/k8s/build-e2e.sh, cached). Ends
# with one line "N passed, N failed" that counts both runs (a failed check counts as one failure).
# Needs root (e2e tests start containerd).
#
#   bash scripts/test.sh            # everything, then unit + integration under load
#   bash scripts/test.sh test/unit  # a subset (paths are passed to bun test), no loaded rerun
#   LOADED_RERUN=0 bash scripts/test.sh   # everything, without the loaded rerun
#   CONFORMANCE_SLICE=0 bash scripts/test.sh   # everything, without the NodeConformance slice
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }
bash scripts/build-images.sh >/dev/null || { echo "image build failed"; echo "0 passed, 1 failed"; exit 1; }
bash scripts/build.sh || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
# The upstream control plane for the cluster tests: a cold build takes most of an hour on 2 cores,
# later runs reuse /var/cache/bunlet-k8s.
bash scripts/k8s/build.sh >&2 || { echo "k8s build failed"; echo "0 passed, 1 failed"; exit 1; }
# metrics-server for the observability cluster test (kubectl top): a few minutes cold, then cached.
bash scripts/k8s/build-metrics-server.sh >&2 || { echo "metrics-server build failed"; echo "0 passed, 1 failed"; exit 1; }

BUN=node_modules/.bin/bun
# A guard against hangs, not a speed limit: bun's default (5 s per test, and bunfig.toml cannot
# change it) failed slow e2e and contract steps on a busy machine, and a timed-out test has its
# child processes killed (a containerd, taking every later test in the file with it).
TEST_TIMEOUT_MS=${TEST_TIMEOUT_MS:-120000}
paths=("$@")
full=0
if [ ${#paths[@]} -eq 0 ]; then
  full=1
  paths=(test/unit test/contract test/integration test/e2e)
fi

# Job control: each suite run gets a process group of its own, which an interrupt can end whole.
set -m
total_passed=0
total_failed=0
failures=()
suite_pid=""
# Runs bun test on the paths that exist and adds its counts to the totals. The run is waited for
# in the background so that the traps below act at once on an interrupt.
run_suite() {
  local existing=() p log status passed failed
  for p in "$@"; do [ -e "$p" ] && existing+=("$p"); done
  log=$(mktemp)
  ( "$BUN" test --timeout "$TEST_TIMEOUT_MS" "${existing[@]}" 2>&1 | tee "$log"; exit "${PIPESTATUS[0]}" ) &
  suite_pid=$!
  wait "$suite_pid"
  status=$?
  suite_pid=""
  passed=$(grep -E '^ *[0-9]+ pass$' "$log" | tail -1 | awk '{print $1}')
  failed=$(grep -E '^ *[0-9]+ fail$' "$log" | tail -1 | awk '{print $1}')
  # The failing tests' names, repeated at the very end: a CI log often shows only its tail.
  while IFS= read -r line; do failures+=("$line"); done < <(grep -E '^\(fail\) ' "$log")
  rm -f "$log"
  passed=${passed:-0}
  failed=${failed:-0}
  # A crash of the runner (non-zero exit with no failing test counted) still counts as a failure.
  if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
}

# Under load: unit and integration once more while one `yes` per core (at least two) keeps every
# core busy, as a CI machine running other jobs does. A test that leans on timing (real time
# instead of a FakeClock, a race with a timer) fails here before it lands. The load generators
# are stopped when the rerun ends, and by the traps if the script is interrupted or fails.
load_pids=()
stop_load() {
  local pid
  for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${load_pids[@]}"; do wait "$pid" 2>/dev/null; done
  load_pids=()
}
interrupted() {
  [ -n "$suite_pid" ] && kill -TERM -- "-$suite_pid" 2>/dev/null
  stop_load
  exit 130
}
trap stop_load EXIT
trap interrupted INT TERM

# The quality gate first (`npm run check`: tsc --noEmit, the Biome linter, the architecture and
# docs checks): bun runs TypeScript without checking its types, so a type error would otherwise
# land unseen. Counted as one failed test.
if [ "$full" -eq 1 ]; then
  echo "== npm run check"
  if npm run --silent check; then
    echo "check: no type error, lint finding, architecture or docs problem"
  else
    total_failed=$((total_failed + 1))
    failures+=("(fail) npm run check: type errors, lint findings or architecture/docs problems (above)")
  fi
fi

run_suite "${paths[@]}"

# The NodeConformance slice: each spec of scripts/conformance-slice.txt run by the upstream suite
# (scripts/conformance.sh) against dist/bunlet; each passed spec counts as a passed test, each
# failed one (or one the run never reached) as a failed test.
run_conformance_slice() {
  local out=.tmp/conformance/ci-slice want focus status counts passed failed line
  echo
  echo "== NodeConformance slice (scripts/conformance-slice.txt) on a bunlet node"
  if ! bash scripts/k8s/build-e2e.sh >&2; then
    total_failed=$((total_failed + 1))
    failures+=("(fail) NodeConformance slice: scripts/k8s/build-e2e.sh failed (above)")
    return
  fi
  want=$(grep -cvE '^(#|$)' scripts/conformance-slice.txt)
  focus=$(grep -vE '^(#|$)' scripts/conformance-slice.txt | paste -sd'|')
  rm -rf "$out"
  ( bash scripts/conformance.sh --focus "$focus" --out "$out" ) &
  suite_pid=$!
  wait "$suite_pid"
  status=$?
  suite_pid=""
  counts=$(awk '$1 == "total" { print $2, $3 }' "$out/summary.txt" 2>/dev/null)
  passed=${counts% *}
  failed=${counts#* }
  passed=${passed:-0}
  failed=${failed:-0}
  while IFS= read -r line; do failures+=("(fail) NodeConformance: ${line#- }"); done < <(grep -E '^- \[' "$out/summary.txt" 2>/dev/null)
  # Specs that never ran (the run broke off, or a name no longer matches the suite) fail too.
  if [ $((passed + failed)) -lt "$want" ]; then
    failures+=("(fail) NodeConformance slice: $((want - passed - failed)) of $want specs did not run (exit $status; see $out)")
    failed=$((want - passed))
  fi
  echo "NodeConformance slice: $passed passed, $failed failed of $want (logs in $out)"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
}
if [ "$full" -eq 1 ] && [ "${CONFORMANCE_SLICE:-1}" != "0" ]; then
  run_conformance_slice
fi

if [ "$full" -eq 1 ] && [ "${LOADED_RERUN:-1}" != "0" ]; then
  cores=$(nproc 2>/dev/null || echo 2)
  [ "$cores" -lt 2 ] && cores=2
  echo
  echo "== unit and integration again, with ${cores} busy loops keeping every core busy"
  for _ in $(seq "$cores"); do
    yes >/dev/null &
    load_pids+=("$!")
  done
  run_suite test/unit test/integration
  stop_load
fi

if [ ${#failures[@]} -gt 0 ]; then
  echo
  echo "== failed tests"
  # bun lists a file's failures again at the end of its run: each name once.
  printf '%s\n' "${failures[@]}" | awk '!seen[$0]++'
fi
echo "${total_passed} passed, ${total_failed} failed"
[ "$total_failed" -eq 0 ]
