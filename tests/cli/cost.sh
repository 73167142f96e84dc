#!/usr/bin/env bash
# End-to-end: floorsim cost on a scenario with a capacity block (run with and without it), on a
# run directory, on a sweep directory; outputs cost.json/csv/md; bad prices are exit 2, one line,
# no output directory; the output is byte-identical run to run.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has
EX="$SRC/examples/cost"

"$FS" cost "$EX/night.json" --prices "$EX/prices.json" --out "$T/c1" > "$T/c1.txt" || fail "cost exit $?"
for f in cost.json cost.csv cost.md; do [ -s "$T/c1/$f" ] || fail "missing $f"; done
grep -q '^| var | reserved+burst |' "$T/c1.txt" || fail "no var reserved+burst row"
grep -q '^var,shared,' "$T/c1/cost.csv" || fail "no csv row"
# The block may not be had (10%): reserved+burst misses with chance 0.1 where shared (no block) misses.
python3 - "$T/c1/cost.json" <<'PY' || fail "cost.json figures"
import json, sys
r = json.load(open(sys.argv[1]))
var = next(c for c in r["classes"] if c["class"] == "var")
o = {x["option"]: x for x in var["options"]}
assert o["shared"]["p_miss"] == 1.0, o["shared"]
assert abs(o["reserved+burst"]["p_miss"] - 0.1) < 1e-12, o["reserved+burst"]
assert o["dedicated"]["p_miss_basis"] == "fit bound" and o["shared"]["p_miss_basis"] == "simulated", o
assert var["cheapest"] == "reserved+burst"
assert abs(r["prices"]["onprem_gpu_hour_usd"] - (300000 / (4 * 8760) + 1.5) / 8) < 1e-9
PY
"$FS" cost "$EX/night.json" --prices "$EX/prices.json" --out "$T/c2" > /dev/null
cmp "$T/c1/cost.json" "$T/c2/cost.json" || fail "cost.json differs between two runs"

# A run directory: one run, so shared is priced with the run's (block-had) misses and a warning says so.
"$FS" run "$EX/night.json" --out "$T/run" > /dev/null
"$FS" cost "$T/run" --prices "$EX/prices.json" --base-dir "$EX" > "$T/r.txt" 2> "$T/r.err" || fail "cost on a run dir"
grep -q "no run without them" "$T/r.err" || fail "no warning about the missing run without blocks"

# A sweep directory: the miss chance is the share of points that missed; windows come from the prices.
"$FS" sweep "$EX/sweep.json" --out "$T/sw" > /dev/null
"$FS" cost "$T/sw" --prices "$EX/prices-sweep.json" > "$T/sw.txt" 2> "$T/sw.err" || fail "cost on a sweep dir"
grep -q '^| var | shared | .* | 0.250 |' "$T/sw.txt" || fail "sweep miss chance: $(cat "$T/sw.txt")"
grep -q '^| var | dedicated | .* | 0.750 | fit bound |' "$T/sw.txt" || fail "sweep dedicated fit bound per point: $(grep dedicated "$T/sw.txt")"
set +e
"$FS" cost "$T/sw" --prices "$EX/prices.json" > /dev/null 2> "$T/sw2.err"
rc=$?
set -e
[ "$rc" = 2 ] && grep -q 'reserved_window_h' "$T/sw2.err" || fail "a sweep without windows: exit $rc $(cat "$T/sw2.err")"

# Bad prices: one line naming the key, exit 2, nothing written.
echo '{"onprem": {"gpu_hour_usd": 1}, "cloud_gpu_hour_usd": "lots"}' > "$T/bad.json"
set +e
"$FS" cost "$EX/night.json" --prices "$T/bad.json" --out "$T/c3" > /dev/null 2> "$T/bad.err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "bad prices exit $rc"
[ "$(wc -l < "$T/bad.err")" = 1 ] || fail "expected one line: $(cat "$T/bad.err")"
grep -q 'bad.json:/cloud_gpu_hour_usd' "$T/bad.err" || fail "error names the key: $(cat "$T/bad.err")"
[ ! -e "$T/c3" ] || fail "output written on bad input"
echo "cost: ok"
