#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what is missing (Debian packages, npm packages),
# builds the local images, dist/bunlet and the upstream Kubernetes binaries (scripts/k8s/build.sh,
# cached), then runs unit, contract, integration and e2e tests.
# Ends with one line "N passed, N failed". Needs root (e2e tests start containerd).
#
#   bash scripts/test.sh            # everything
#   bash scripts/test.sh test/unit  # a subset (paths are passed to bun test)
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }
bash scripts/build-images.sh >/dev/null || { echo "image build failed"; echo "0 passed, 1 failed"; exit 1; }
bash scripts/build.sh || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
# The upstream control plane for the cluster tests: a cold build takes most of an hour on 2 cores,
# later runs reuse /var/cache/bunlet-k8s.
bash scripts/k8s/build.sh >&2 || { echo "k8s build failed"; echo "0 passed, 1 failed"; exit 1; }

BUN=node_modules/.bin/bun
paths=("$@")
[ ${#paths[@]} -eq 0 ] && paths=(test/unit test/contract test/integration test/e2e)
existing=()
for p in "${paths[@]}"; do [ -e "$p" ] && existing+=("$p"); done

log=$(mktemp)
"$BUN" test "${existing[@]}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -E '^ *[0-9]+ pass$' "$log" | tail -1 | awk '{print $1}')
failed=$(grep -E '^ *[0-9]+ fail$' "$log" | tail -1 | awk '{print $1}')
rm -f "$log"
passed=${passed:-0}
failed=${failed:-0}
# A crash of the runner (non-zero exit with no failing test counted) still counts as a failure.
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "${passed} passed, ${failed} failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
