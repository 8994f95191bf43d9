#!/usr/bin/env bash
# Runs the store outage tests (SQLite disk full and read-only, FerretDB stopped) N times in a row and
# prints pass/fail per run and a summary: proof that they do not depend on timing. Not part of CI.
#
#   npm run test:outage-loop                      # 20 runs
#   npm run test:outage-loop -- --runs 5 --cpu-hog  # 5 runs beside busy loops it starts and stops
#
# --cpu-hog starts one busy Node process per core (or --hogs K of them) for the whole loop and stops
# them at the end, even when interrupted. The SQLite scenarios mount file systems: as root only (a run
# where they were skipped is reported as such, not as a pass). Each run's output is kept in a
# directory printed at the start.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=20
hogs=0
usage() { echo "usage: $0 [--runs N] [--cpu-hog] [--hogs K]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
    --cpu-hog) [ "$hogs" -gt 0 ] || hogs=$(nproc); shift ;;
    --hogs) [ $# -ge 2 ] || usage; hogs=$2; shift 2 ;;
    *) usage ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ && "$hogs" =~ ^[0-9]+$ ]] || usage
[ "$(id -u)" = 0 ] || echo "warning: not root, the SQLite disk scenarios will be skipped" >&2

logs=$(mktemp -d /tmp/sac-outage-loop-XXXXXX)
hog_pids=()
stop_hogs() {
  for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${hog_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  hog_pids=()
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM
for _ in $(seq 1 "$hogs"); do
  node -e 'for (;;) {}' &
  hog_pids+=($!)
done

echo "outage loop: $runs runs, $hogs CPU hog(s), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); logs in $logs"
passed=0
failed=0
skipped=0
for i in $(seq 1 "$runs"); do
  started=$(date +%s%N)
  result=$logs/run-$i.json
  # The exit code is read from the JSON report, which also tells skipped scenarios from passed ones.
  npx vitest run test/integration/store-outage-sqlite.test.ts test/integration/store-outage.test.ts --project default \
    --reporter=default --reporter=json --outputFile.json="$result" >"$logs/run-$i.log" 2>&1 || true
  ms=$((($(date +%s%N) - started) / 1000000))
  verdict=$(node -e '
    const fs = require("node:fs");
    const file = process.argv[1];
    if (!fs.existsSync(file)) { console.log("fail no report"); process.exit(); }
    const r = JSON.parse(fs.readFileSync(file, "utf8"));
    const failedNames = r.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === "failed").map((a) => a.fullName));
    const ok = r.numFailedTests === 0 && r.numFailedTestSuites === 0 && r.numTotalTests > 0;
    const skipped = r.numPendingTests + r.numTodoTests;
    console.log(`${!ok ? "fail" : skipped > 0 ? "skip" : "pass"} (${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped)${failedNames.length ? ": " + failedNames.join("; ") : ""}`);
  ' "$result")
  case "${verdict%% *}" in
    pass) passed=$((passed + 1)) ;;
    skip) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
  printf 'run %d/%d: %s in %d.%d s, load %s\n' "$i" "$runs" "$verdict" $((ms / 1000)) $((ms % 1000 / 100)) "$(cut -d' ' -f1 /proc/loadavg)"
done
stop_hogs

echo "summary: $passed passed, $failed failed, $skipped with skipped scenarios, of $runs runs ($hogs CPU hog(s)); load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$failed" -eq 0 ] && [ "$skipped" -eq 0 ]
