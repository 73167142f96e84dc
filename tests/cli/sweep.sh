#!/usr/bin/env bash
# End-to-end: floorsim sweep / merge (issue 8). 1 and 2 threads and 3 merged shards give
# byte-identical files; a torn / shortened / killed output resumed with --resume completes with
# no index lost or doubled; bad sweep files exit 2 with one file:pointer line and no output.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has
D="$SRC/tests/cli/data"
same() { for f in results.jsonl results.csv sweep.json; do cmp -s "$1/$f" "$2/$f" || fail "$f differs: $1 vs $2 ($3)"; done; }
# The index of every line, in file order (keys are sorted: "axes" < "error" < "index" < "metrics").
indices() { awk 'match($0, /"index":[0-9]+/) { printf "%s%s", (n++ ? " " : ""), substr($0, RSTART + 8, RLENGTH - 8) } END { print "" }' "$1"; }

"$FS" sweep "$D/sweep_small.json" --out "$T/j1" -j1 > "$T/j1.txt" || fail "sweep -j1 exit $?"
grep -q "8 points; ran 8" "$T/j1.txt" || fail "summary: $(cat "$T/j1.txt")"
"$FS" sweep "$D/sweep_small.json" --out "$T/j2" --threads 2 -q || fail "sweep -j2"
same "$T/j1" "$T/j2" "1 vs 2 threads"
[ "$(wc -l < "$T/j1/results.jsonl")" -eq 8 ] || fail "expected 8 lines"
[ "$(indices "$T/j1/results.jsonl")" = "0 1 2 3 4 5 6 7" ] || fail "lines not sorted by index"
[ "$(wc -l < "$T/j1/results.csv")" -eq 9 ] || fail "csv rows"
head -1 "$T/j1/results.csv" | has '^index,var_floor,pool_nodes,load,' || fail "csv header: $(head -1 "$T/j1/results.csv" | cut -c1-80)"
grep -q '"verdict":{"criteria"' "$T/j1/results.jsonl" || fail "rehearse sweep lines carry no verdict"
# Grid order: first axis slowest; point 5 = var_floor 128, pool 1, load 0.5.
sed -n 6p "$T/j1/results.jsonl" | has '"axes":{"load":0.5,"pool_nodes":1,"var_floor":128}' || fail "grid order"
# A base file relative to the sweep file, string values (scheduler models), no verdict.
"$FS" sweep "$SRC/examples/sweeps/quickstart-schedulers.json" --out "$T/qs" -q || fail "quickstart-schedulers sweep"
[ "$(wc -l < "$T/qs/results.jsonl")" -eq 6 ] || fail "quickstart-schedulers: 6 lines"
sed -n 5p "$T/qs/results.jsonl" | has '"scheduler":"conservative_backfill"' || fail "string axis value"
! grep -q '"verdict"' "$T/qs/results.jsonl" || fail "a run-based sweep carries no verdict"
# No progress bar when stderr is not a terminal.
"$FS" sweep "$D/sweep_small.json" --out "$T/np" -q 2> "$T/np.err"; [ ! -s "$T/np.err" ] || fail "progress printed to a non-terminal"
"$FS" sweep "$D/sweep_small.json" --out "$T/pb" -q --progress always 2> "$T/pb.err"; grep -q "8/8" "$T/pb.err" || fail "no progress bar with --progress always"

# Shards: 3 slices (0-based, Slurm --array=0-2), merged = the unsharded run.
for i in 0 1 2; do "$FS" sweep "$D/sweep_small.json" --out "$T/s$i" --shard $i/3 -j2 -q || fail "shard $i"; done
[ "$(indices "$T/s1/results.jsonl")" = "1 4 7" ] || fail "shard 1/3 holds $(indices "$T/s1/results.jsonl")"
"$FS" merge "$T/m" "$T/s0" "$T/s1" "$T/s2" > "$T/m.txt" || fail "merge"
same "$T/j1" "$T/m" "3 shards merged"
set +e
"$FS" merge "$T/m2" "$T/s0" "$T/s2" 2> "$T/e"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "missing (1,4,7)" "$T/e" && [ ! -e "$T/m2" ] || fail "merge with a missing shard: rc $rc, $(cat "$T/e")"
set +e
"$FS" merge "$T/m2" "$T/s0" "$T/s1" "$T/s1" "$T/s2" 2> "$T/e"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "index 1 is also in" "$T/e" && [ ! -e "$T/m2" ] || fail "merge with a doubled shard: rc $rc, $(cat "$T/e")"
set +e
"$FS" sweep "$D/sweep_small.json" --out "$T/x" --shard 3/3 2> "$T/e"; rc=$?
set -e
[ "$rc" -eq 2 ] && [ ! -e "$T/x" ] || fail "--shard 3/3 accepted"

# The example Slurm job-array script, run as three array tasks here, then merged.
for i in 0 1 2; do
  SLURM_ARRAY_JOB_ID=42 SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=3 SLURM_CPUS_PER_TASK=2 FLOORSIM="$FS" OUT="$T/array" \
    SWEEP="$D/sweep_small.json" bash "$SRC/examples/sweeps/slurm-array.sbatch" > /dev/null || fail "sbatch task $i"
done
"$FS" merge "$T/array/merged" "$T/array"/shard-* -q || fail "merge of the array's shards"
same "$T/j1" "$T/array/merged" "Slurm array example merged"

# Resume after a kill that tore the last line: 3 whole lines + half of the 4th.
mkdir "$T/r1"; cp "$T/j1/sweep.json" "$T/j1/.floorsim-output" "$T/r1/"
{ head -3 "$T/j1/results.jsonl"; sed -n 4p "$T/j1/results.jsonl" | head -c 100; } > "$T/r1/results.jsonl"
"$FS" sweep "$D/sweep_small.json" --out "$T/r1" --resume -j2 > "$T/r1.txt" || fail "resume (torn)"
grep -q "ran 5 .*already done 3" "$T/r1.txt" || fail "resume should run 5 and keep 3: $(cat "$T/r1.txt")"
same "$T/j1" "$T/r1" "resumed after a torn line"
# Lines removed from the middle (order as finished, unsorted) are rerun, none doubled.
mkdir "$T/r2"; cp "$T/j1/sweep.json" "$T/j1/.floorsim-output" "$T/r2/"
sed -n '7p;1p;4p' "$T/j1/results.jsonl" > "$T/r2/results.jsonl"
"$FS" sweep "$D/sweep_small.json" --out "$T/r2" --resume -q || fail "resume (removed lines)"
same "$T/j1" "$T/r2" "resumed after removing lines"
# A real kill -9 part-way, then --resume.
"$FS" sweep "$D/sweep_lhs.json" --out "$T/k" -j1 -q & pid=$!
for _ in $(seq 200); do [ -s "$T/k/results.jsonl" ] && [ "$(wc -l < "$T/k/results.jsonl")" -ge 3 ] && break; sleep 0.05; done
kill -9 $pid 2>/dev/null || true; wait $pid 2>/dev/null || true
"$FS" sweep "$D/sweep_lhs.json" --out "$T/k" --resume -j2 -q || fail "resume after kill -9"
"$FS" sweep "$D/sweep_lhs.json" --out "$T/kref" -j2 -q || fail "lhs reference"
same "$T/kref" "$T/k" "resumed after kill -9"
[ "$(indices "$T/k/results.jsonl")" = "$(seq -s ' ' 0 11)" ] || fail "killed sweep lost or doubled an index"
# An existing sweep is not overwritten without --resume; a different sweep does not resume.
set +e
"$FS" sweep "$D/sweep_small.json" --out "$T/j1" -q 2> "$T/e"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "already holds sweep results" "$T/e" || fail "rerun over results: rc $rc"
set +e
"$FS" sweep "$SRC/examples/sweeps/quant-night-lhs.json" --out "$T/j1" --resume -q 2> "$T/e"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "different sweep" "$T/e" || fail "resume of a different sweep: rc $rc"

# Bad sweep files: exit 2, one line naming the sweep file and the axis pointer, no output.
check_bad() {  # file, expected substring
  set +e
  "$FS" sweep "$1" --out "$T/bad" 2> "$T/bad.err"; local rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, expected 2"
  [ "$(wc -l < "$T/bad.err")" -eq 1 ] || fail "$1: error is not one line: $(cat "$T/bad.err")"
  grep -qF "$2" "$T/bad.err" || fail "$1: error lacks '$2': $(cat "$T/bad.err")"
  [ ! -e "$T/bad" ] || fail "$1: bad input left output"
}
check_bad "$D/sweep_bad_value.json" "sweep_bad_value.json:/axes/1/pointer: point 1"
check_bad "$D/sweep_bad_pointer.json" "sweep_bad_pointer.json:/axes/0/pointer:"
echo '{"base": "rehearse", "axes": [{"pointer": "/seed", "valeus": [1]}]}' > "$T/b1.json"
check_bad "$T/b1.json" "b1.json:/axes/0/valeus: unknown key"
echo '{"base": "nope.json", "axes": [{"pointer": "/seed", "values": [1]}]}' > "$T/b2.json"
check_bad "$T/b2.json" "b2.json:/base:"
echo '{"base": "rehearse", "mode": "list", "axes": [{"pointer": "/seed", "values": [1, 2]}, {"pointer": "/idle_pool/nodes", "values": [1]}]}' > "$T/b3.json"
check_bad "$T/b3.json" "b3.json:/axes/1/values: has 1 values"
echo '{"base": "rehearse", "runtime_jobs": [], "axes": [{"pointer": "/seed", "values": [1]}]}' > "$T/b5.json"
check_bad "$T/b5.json" "b5.json:/runtime_jobs: only a fabric sweep"
sed 's#"gpus": 8,#"gpus": 0,#; s#"base": "../fabric/#"base": "'"$SRC"'/examples/fabric/#' "$SRC/examples/sweeps/fabric-taper.json" > "$T/b6.json"
check_bad "$T/b6.json" "b6.json:/runtime_jobs/0/gpus: expected an integer >= 1"
echo '{"base": "rehearse", "axes": [' > "$T/b4.json"
check_bad "$T/b4.json" "b4.json:"

# --help lists every option with its default.
"$FS" sweep --help | has -- "-j, --threads N .*(default: 0)" || fail "sweep --help lacks --threads default"
"$FS" sweep --help | tr -s " \n" " " | has -- "--shard I/N .*(default: 0/1)" || fail "sweep --help lacks --shard default"
"$FS" merge --help | has "SHARD_DIR" || fail "merge --help"
echo "sweep.sh: ok"
