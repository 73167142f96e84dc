#!/usr/bin/env bash
# End-to-end: floorsim review over a quarter of sacct accounting (examples/review/make_sacct.py)
# and over a run directory: review.md/json, weekly/monthly CSV, Prometheus rules; bad
# entitlements are exit 2, one line, nothing written; the output is byte-identical run to run.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
EX="$SRC/examples/review"

python3 "$EX/make_sacct.py" "$T/sacct.txt"
"$FS" review "$T/sacct.txt" --entitlements "$EX/entitlements.json" --out "$T/r1" > "$T/r1.txt" || fail "review exit $?"
for f in review.md review.json weekly.csv monthly.csv alerts.yml; do [ -s "$T/r1/$f" ] || fail "missing $f"; done
grep -q '^| var | 16 | 64.0 | 19 | +3 |' "$T/r1.txt" || fail "var rebalancing row: $(grep '^| var' "$T/r1.txt")"
grep -q '^2026-03,var,' "$T/r1/monthly.csv" || fail "no March roll-up for var"
grep -q '^2026-01-05,var,' "$T/r1/weekly.csv" || fail "no first week for var"
grep -q '^| var | 2026-03-' "$T/r1.txt" || fail "the quarter-end VaR pile-up is not found"
grep -q 'alert: FloorsimClassSlaMargin' "$T/r1/alerts.yml" || fail "no SLA margin rule"
grep -q 'expr: floorsim_class_gpus_used{class="training"} / floorsim_class_floor_gpus{class="training"} >= 0.8' "$T/r1/alerts.yml" || fail "no quota rule"
"$FS" review "$T/sacct.txt" --entitlements "$EX/entitlements.json" --out "$T/r2" > /dev/null
cmp "$T/r1/review.json" "$T/r2/review.json" && cmp "$T/r1/alerts.yml" "$T/r2/alerts.yml" || fail "outputs differ between runs"

# A run directory (its jobs.csv).
"$FS" run "$SRC/examples/cost/night.json" --out "$T/run" > /dev/null
echo '{"capacity_gpus": 32, "class_from": "class", "classes": {"var": {"floor_gpus": 24, "reserved": true}, "eod": {"floor_gpus": 16}}}' > "$T/ent.json"
"$FS" review "$T/run" --entitlements "$T/ent.json" > "$T/run.txt" 2> "$T/run.err" || fail "review of a run dir"
grep -q '^| var | 40 |' "$T/run.txt" || fail "var total from the run: $(grep '^| var' "$T/run.txt")"
grep -q 'class training has no entitlement' "$T/run.err" || fail "no warning for a class without entitlement"

# Bad entitlements: one line, exit 2, nothing written.
echo '{"capacity_gpus": 0, "classes": {}}' > "$T/bad.json"
set +e
"$FS" review "$T/sacct.txt" --entitlements "$T/bad.json" --out "$T/r3" > /dev/null 2> "$T/bad.err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "bad entitlements exit $rc"
[ "$(wc -l < "$T/bad.err")" = 1 ] && grep -q 'bad.json:/capacity_gpus' "$T/bad.err" || fail "error line: $(cat "$T/bad.err")"
[ ! -e "$T/r3" ] || fail "output written on bad input"
echo "review: ok"
