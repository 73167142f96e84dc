#!/usr/bin/env bash
# End-to-end: floorsim review over a quarter of sacct accounting (examples/review/make_sacct.py)
# and over a run directory: review.md/json, weekly/monthly CSV, Prometheus rules, the HTML page
# `floorsim report` renders from the review's directory (every section present); bad
# entitlements are exit 2, one line, nothing written; the output is byte-identical run to run.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has
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

grep -q '^## Capacity by month' "$T/r1/review.md" && grep -q '"capacity_monthly"' "$T/r1/review.json" || fail "no monthly capacity roll-up"

# The review as HTML through `floorsim report`: every section (by id) with its table or chart,
# weekly and monthly roll-ups, byte-identical run to run, self-contained.
"$FS" report "$T/r1" -o "$T/r1.html" 2> /dev/null || fail "report of a review dir"
for id in summary review-classes-table chart-review-usage chart-review-use-weekly chart-review-use-monthly chart-review-wait-weekly \
          chart-review-wait-monthly chart-review-capacity-weekly chart-review-capacity-monthly review-capacity-weekly-table \
          review-capacity-monthly-table review-pileups-table review-rebalance-table chart-review-rebalance review-alerts-table \
          review-monthly-table review-weekly-table footer; do
  grep -q "id=\"$id\"" "$T/r1.html" || fail "review HTML lacks id=$id"
done
grep -q '<tr><td>var</td><td>16</td><td>64.0</td><td>19</td><td>+3</td></tr>' "$T/r1.html" || fail "review HTML rebalancing row for var"
grep -q '<tr><td>2026-03</td><td>var</td>' "$T/r1.html" || fail "review HTML lacks the March roll-up for var"
grep -q '<td>var</td><td>FloorsimClassSlaMargin</td><td>critical</td><td>1800 s (0:30)</td>' "$T/r1.html" || fail "review HTML SLA alert threshold"
grep -q '<td>var</td><td>2026-03-03</td><td>2026-03-07</td><td>107.7</td>' "$T/r1.html" || fail "review HTML pile-up window"
[ "$(grep -c '<circle ' "$T/r1.html")" -ge 100 ] || fail "review HTML charts have too few points"
! grep -Eqi '<script|(src|href)=' "$T/r1.html" || fail "review HTML is not self-contained"
"$FS" report "$T/r2" -o "$T/r2.html" 2> /dev/null
cmp "$T/r1.html" "$T/r2.html" || fail "review HTML differs between runs"
# A review.json without a section: exit 2, one line naming it, no file.
mkdir "$T/r4" && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["alerts"]; json.dump(d, open(sys.argv[2], "w"))' \
  "$T/r1/review.json" "$T/r4/review.json"
set +e
"$FS" report "$T/r4" -o "$T/r4.html" 2> "$T/r4.err"; rc=$?
set -e
[ "$rc" = 2 ] && [ "$(wc -l < "$T/r4.err")" = 1 ] && grep -q 'review.json:/alerts' "$T/r4.err" && [ ! -e "$T/r4.html" ] ||
  fail "review.json without alerts: rc $rc $(cat "$T/r4.err")"

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
