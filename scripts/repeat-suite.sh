#!/usr/bin/env bash
# Runs the whole suite N times in a row (default 5) on both databases — embedded PGlite
# (`npm test`) and a private PostgreSQL (`npm run test:postgres`) — and stops at the first failing
# run. A suite that passes N times in a row has no flake that shows once in N runs.
# Usage: scripts/repeat-suite.sh [N]
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
for i in $(seq 1 "$runs"); do
  for pass in test test:postgres; do
    start=$(date +%s)
    if ! npm run "$pass" >"${TMPDIR:-/tmp}/doorstep-repeat-$pass-$i.log" 2>&1; then
      echo "run $i, npm run $pass: FAILED after $(( $(date +%s) - start )) s (log: ${TMPDIR:-/tmp}/doorstep-repeat-$pass-$i.log)"
      grep -E "FAIL|×" "${TMPDIR:-/tmp}/doorstep-repeat-$pass-$i.log" | head -20
      exit 1
    fi
    echo "run $i, npm run $pass: $(sed 's/\x1b\[[0-9;]*m//g' "${TMPDIR:-/tmp}/doorstep-repeat-$pass-$i.log" | grep -E '^ +Tests ' | tr -s ' ') in $(( $(date +%s) - start )) s"
  done
done
echo "$runs runs in a row passed on both databases"
