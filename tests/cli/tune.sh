#!/usr/bin/env bash
# End-to-end: the two traps a weight sweep falls into, made visible (a slurm.conf key that
# overrides the scheduler block warns at load naming both; a sweep axis that changes no result is
# flagged in sweep.json and on stderr), and `floorsim tune`: byte-identical output for a seed
# with 1 and 2 threads, a held-out window, a key slurm.conf sets refused with one line.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has
D="$SRC/tests/app/data"

# Trap 1: slurm.conf's PriorityWeightAge wins over the block's; the warning names both.
"$FS" run "$D/tune_conf.json" --out "$T/conf" -q 2> "$T/conf.err" || fail "run tune_conf.json"
grep -q "tune_slurm.conf: PriorityWeightAge (1000) overrides .*tune_conf.json /scheduler/priority_weight_age = 5" "$T/conf.err" ||
  fail "no override warning: $(cat "$T/conf.err")"
# The block setting the file's own value is no trap: no warning.
sed -e 's/"priority_weight_age": 5/"priority_weight_age": 1000/' -e "s#tune_slurm.conf#$D/tune_slurm.conf#" "$D/tune_conf.json" > "$T/same.json"
"$FS" run "$T/same.json" --out "$T/same" -q 2> "$T/same.err" || fail "run same.json"
grep -q "overrides" "$T/same.err" && fail "warned though the block and the file agree: $(cat "$T/same.err")"

# Trap 2: the sweep over that weight changes nothing; the axis is flagged, the other is not.
"$FS" sweep "$SRC/examples/sweeps/slurm-conf-override.json" --out "$T/trap" -q 2> "$T/trap.err" || fail "trap sweep"
grep -q "sweep axis priority_weight_age changes no result" "$T/trap.err" || fail "no no-effect warning: $(cat "$T/trap.err")"
grep -q "sweep axis bf_max_job_user" "$T/trap.err" && fail "bf_max_job_user flagged though it changes results"
tr -d ' \n' < "$T/trap/sweep.json" | has '"changes_results":false,"name":"priority_weight_age"' || fail "sweep.json does not flag the axis"
tr -d ' \n' < "$T/trap/sweep.json" | has '"no_effect_axes":\["priority_weight_age"\]' || fail "sweep.json no_effect_axes"
# Shards merged give the same flags as the whole sweep; --resume accepts a flagged sweep.json.
for i in 0 1; do "$FS" sweep "$SRC/examples/sweeps/slurm-conf-override.json" --out "$T/s$i" --shard $i/2 -q 2>/dev/null || fail "shard $i"; done
"$FS" merge "$T/m" "$T/s0" "$T/s1" -q 2> "$T/m.err" || fail "merge"
cmp -s "$T/trap/sweep.json" "$T/m/sweep.json" || fail "merged sweep.json differs from the whole sweep's"
grep -q "sweep axis priority_weight_age changes no result" "$T/m.err" || fail "merge does not warn"
"$FS" sweep "$SRC/examples/sweeps/slurm-conf-override.json" --out "$T/trap" --resume -q 2>/dev/null || fail "--resume on a flagged sweep.json"

# tune: the same seed gives byte-identical files whatever the thread count.
cat > "$T/tune.json" <<JSON
{"base": "$D/tune_small.json", "objective": {"metric": "mean_wait_s"},
 "params": [{"name": "priority_weight_jobsize", "min": 0, "max": 10000}, {"name": "bf_window_min", "min": 10, "max": 600}],
 "search": {"seed": 5, "samples": 4, "rounds": 1}, "holdout": {"split_at_s": 3000}}
JSON
"$FS" tune "$T/tune.json" --out "$T/t1" --threads 1 > "$T/t1.txt" 2> "$T/t1.err" || fail "tune -j1: $(cat "$T/t1.err")"
"$FS" tune "$T/tune.json" --out "$T/t2" --threads 2 -q || fail "tune -j2"
for f in tune.json evaluations.csv; do cmp -s "$T/t1/$f" "$T/t2/$f" || fail "$f differs between 1 and 2 threads"; done
grep -q "^holdout    mean_wait_s " "$T/t1.txt" || fail "summary lacks the held-out row: $(cat "$T/t1.txt")"
grep -q '"holdout": "jobs submitted at or after 3000 s"' "$T/t1/tune.json" || fail "tune.json does not name the split"
head -1 "$T/t1/evaluations.csv" | has '^index,phase,priority_weight_jobsize,bf_window_min,unstarted,objective' || fail "evaluations.csv header"
# Another seed, another search.
sed 's/"seed": 5/"seed": 6/' "$T/tune.json" > "$T/tune6.json"
"$FS" tune "$T/tune6.json" --out "$T/t6" -q || fail "tune seed 6"
cmp -s "$T/t1/evaluations.csv" "$T/t6/evaluations.csv" && fail "seeds 5 and 6 searched the same points"

# A key the scenario's slurm.conf sets cannot be tuned: one line, exit 2, no output.
cat > "$T/bad.json" <<JSON
{"base": "$D/tune_conf.json", "params": [{"name": "priority_weight_age", "min": 0, "max": 10}], "holdout": {"split_at_s": 10}}
JSON
set +e
"$FS" tune "$T/bad.json" --out "$T/bad" 2> "$T/bad.err"; rc=$?
set -e
[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/bad.err")" -eq 1 ] && [ ! -e "$T/bad" ] || fail "tune of an overridden key: rc $rc, $(cat "$T/bad.err")"
grep -q "/params/0/name: priority_weight_age is set by" "$T/bad.err" || fail "error text: $(cat "$T/bad.err")"

# The example: 1,034 jobs, tuned on the first half, judged on the second (skipped in the quick pass).
if [ "${FLOORSIM_QUICK_EXAMPLES:-0}" != 1 ]; then
  "$FS" tune "$SRC/examples/tune/weights.json" --out "$T/ex" -q -j2 || fail "examples/tune/weights.json"
fi
echo "tune.sh: override warning, no-effect axis flag, tune reproducible across threads"
