#!/bin/bash
# Runs the quant night under the Slurm-like and the Kueue-like model (slurm.json and kueue.json
# differ only in their scheduler block) and prints the README's side-by-side table.
# Usage: bash examples/compare-slurm-kueue/table.sh [path/to/floorsim] [out-dir]
set -euo pipefail
FS="${1:-build/sim/cli/floorsim}"
OUT="${2:-out/compare-slurm-kueue}"
DIR="$(cd "$(dirname "$0")" && pwd)"
"$FS" run "$DIR/slurm.json" --out "$OUT/slurm" -q 2>/dev/null
"$FS" run "$DIR/kueue.json" --out "$OUT/kueue" -q 2>/dev/null
echo "| class | floor attainment slurm / kueue | p99 wait (s) | deadline margin (s) | preemptions |"
echo "|---|---|---|---|---|"
for c in var eod intraday training backtest; do
  jq -r --arg c "$c" --slurpfile k "$OUT/kueue/metrics.json" '
    def f(x): if x == null then "-" else (x * 1000 | round / 1000 | tostring) end;
    def r(x): if x == null then "-" else (x | round | tostring) end;
    .classes[$c] as $s | $k[0].classes[$c] as $q |
    "| \($c) | \(f($s.floor_attainment)) / \(f($q.floor_attainment)) | \(r($s.wait_s.p99)) / \(r($q.wait_s.p99)) | \(r($s.deadline_margin_s)) / \(r($q.deadline_margin_s)) | \($s.preemptions) / \($q.preemptions) |"' \
    "$OUT/slurm/metrics.json"
done
jq -r --slurpfile k "$OUT/kueue/metrics.json" '
  "| all | utilization \(.utilization * 1000 | round / 1000) / \($k[0].utilization * 1000 | round / 1000) | makespan \(.makespan_s | round) / \($k[0].makespan_s | round) s | | cascading \(.cascade_preemptions) / \($k[0].cascade_preemptions) |"' \
  "$OUT/slurm/metrics.json"
