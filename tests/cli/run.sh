#!/usr/bin/env bash
# End-to-end: floorsim run / validate / schema on the shipped examples; bad input exits 2 with a
# one-line error and leaves no output directory; the same scenario gives byte-identical files.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has

# Every example scenario validates.
for f in "$SRC"/examples/*.json; do
  "$FS" validate -q "$f" || fail "validate $f"
done

# The quickstart example runs and writes the four files.
"$FS" run "$SRC/examples/quickstart.json" --out "$T/q1" -q
for f in metrics.json jobs.csv timeline.csv scenario.resolved.json; do
  [ -s "$T/q1/$f" ] || fail "missing $f"
done
head -1 "$T/q1/jobs.csv" | has '^job_id,class,user,account,qos,partition,gpus,nodes,submit_s,start_s,end_s,wait_s,state,requeues,preemptions,node_list' \
  || fail "jobs.csv header"
grep -q '"floor_attainment"' "$T/q1/metrics.json" || fail "metrics.json lacks floor_attainment"
grep -q '"enforce_time_limit": true' "$T/q1/scenario.resolved.json" || fail "defaults not resolved"

# Determinism: byte-identical outputs.
"$FS" run "$SRC/examples/quickstart.json" --out "$T/q2" -q
for f in metrics.json jobs.csv timeline.csv scenario.resolved.json; do
  cmp -s "$T/q1/$f" "$T/q2/$f" || fail "$f differs between identical runs"
done

# KTH-SP2 replay keeps the trace's job ids (first job number is 15).
"$FS" run "$SRC/examples/kth-easy.json" --out "$T/kth" -q
sed -n 2p "$T/kth/jobs.csv" | has '^15,' || fail "KTH job id 15 not kept"
[ "$(wc -l < "$T/kth/jobs.csv")" -eq 28476 ] || fail "KTH jobs.csv rows"

# Bad input: exit 2, one line naming file and pointer, no output directory.
expect_bad() {  # expect_bad FILE PATTERN
  set +e
  err=$("$FS" run "$1" --out "$T/bad" 2>&1 >/dev/null)
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, expected 2"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "$1: error is not one line: $err"
  printf '%s' "$err" | has -- "$2" || fail "$1: error '$err' lacks '$2'"
  [ ! -e "$T/bad" ] || fail "$1: left an output directory"
  ls -A "$T" | has '^\.bad' && fail "$1: left a temporary directory" || true
}
D="$SRC/tests/cli/data"
expect_bad "$D/bad_unknown_key.json" 'bad_unknown_key.json:/cluster/gpu_count: unknown key'
expect_bad "$D/bad_type.json" 'bad_type.json:/workload/jobs/0/gpus: got a string; expected an integer'
expect_bad "$D/bad_negative.json" 'bad_negative.json:/workload/jobs/0/gpus: got -4; expected an integer >= 0'
expect_bad "$D/bad_too_big.json" 'job 7 needs 64 GPUs'
expect_bad "$D/bad_syntax.json" 'bad_syntax.json:4: invalid JSON'
expect_bad "$D/bad_trace.json" 'bad.swf:3:'
expect_bad "$T/does-not-exist.json" 'cannot read file'

# Bad flags: exit 2.
set +e
"$FS" run --bogus >/dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "unknown flag: exit $rc"
"$FS" run --help | has -- '--out' || fail "run --help"
"$FS" schema > "$T/schema.json"  # to a file: grep -q closing a pipe early would SIGPIPE the writer
grep -q '"oneOf"' "$T/schema.json" || fail "schema"
"$FS" schema --format table > "$T/schema.txt"
grep -q 'gpus_per_node (integer, default 8, unit gpus)' "$T/schema.txt" || fail "schema table"
echo "run.sh: all checks passed"
