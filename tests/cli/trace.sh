#!/usr/bin/env bash
# End-to-end: `floorsim trace stats` and `floorsim trace convert` on the real KTH-SP2 log, read
# as the Parallel Workloads Archive distributes it (.swf.gz).
# Usage: bash trace.sh PATH/TO/floorsim   (env FLOORSIM_SOURCE_DIR)
set -u
FS=${1:?usage: trace.sh PATH/TO/floorsim}
SRC=${FLOORSIM_SOURCE_DIR:?}
KTH="$SRC/traces/data/pwa/KTH-SP2-1996-2.1-cln.swf.gz"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# stats: 28,476 rows; 28,475 jobs (job 27313 has -1 processors and is skipped, counted)
out=$("$FS" trace stats "$KTH" --format swf) || fail "stats exited $?"
grep -qx 'rows: 28476' <<<"$out" || fail "rows: $out"
grep -qx 'jobs: 28475' <<<"$out" || fail "jobs: $out"
grep -qx '  procs_unknown: 1' <<<"$out" || fail "skip reason: $out"

json=$("$FS" trace stats "$KTH" --format swf --json) || fail "stats --json exited $?"
grep -q '"rows": 28476' <<<"$json" || fail "json rows"
grep -q '"jobs": 28475' <<<"$json" || fail "json jobs"

# convert swf -> csv -> swf, then stats on each: same jobs and the same figures
"$FS" trace convert "$KTH" --format swf --to csv -o "$TMP/kth.csv" 2>/dev/null || fail "convert to csv"
test -s "$TMP/kth.csv" || fail "no csv written"
head -1 "$TMP/kth.csv" | grep -q '^id,submit_s,runtime_s,time_limit_s,gpus,' || fail "csv header"
"$FS" trace convert "$TMP/kth.csv" --format csv --to swf -o "$TMP/kth.swf" 2>/dev/null || fail "convert csv to swf"
a=$("$FS" trace stats "$KTH" --format swf | grep -E '^(jobs|submit span|jobs by gpus|runtime_s|recorded wait_s)')
b=$("$FS" trace stats "$TMP/kth.csv" --format csv | grep -E '^(jobs|submit span|jobs by gpus|runtime_s|recorded wait_s)')
c=$("$FS" trace stats "$TMP/kth.swf" --format swf | grep -E '^(jobs|submit span|jobs by gpus|runtime_s|recorded wait_s)')
[ "$a" = "$b" ] || fail "csv round trip differs: $a VS $b"
[ "$a" = "$c" ] || fail "swf round trip differs: $a VS $c"

# a malformed line: exit 2, a one-line `file:line:` message, no output file
BAD="$SRC/tests/traces/data/swf_bad_field.swf"
"$FS" trace convert "$BAD" --format swf --to csv -o "$TMP/bad.csv" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] || fail "malformed input exited $rc, expected 2"
grep -q "$BAD:3:" "$TMP/err" || fail "message lacks file:line: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "message is not one line"
test ! -e "$TMP/bad.csv" || fail "output written despite the error"
ls "$TMP" | grep -q tmp && fail "temporary file left behind"

# bad flags: exit 2
"$FS" trace stats "$KTH" --format nope >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad --format not exit 2"
"$FS" trace stats "$KTH" >/dev/null 2>&1; [ $? -eq 2 ] || fail "missing --format not exit 2"
"$FS" trace --help | grep -q 'missing-limit' || fail "--help lacks options"
echo "trace.sh: ok"
