#!/usr/bin/env bash
# End-to-end: floorsim compare (issue 8). The committed CI baseline passes against a fresh run;
# a planted regression fails (exit 1, named in the table and as a JUnit <failure>); a change
# within its band passes; sweep outputs compare point by point; bad bands files exit 2 with one
# file:pointer line and write no JUnit file.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has
BASE="$SRC/examples/ci/baseline-metrics.json"
BANDS="$SRC/examples/ci/bands.json"
wellformed() {
  if command -v xmllint >/dev/null 2>&1; then xmllint --noout "$1" || fail "$1 is not well-formed XML"
  elif command -v python3 >/dev/null 2>&1; then python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$1" || fail "$1 is not well-formed XML"
  else echo "note: neither xmllint nor python3; XML well-formedness not checked" >&2; fi
}

# The CI gate itself: a fresh run of the shipped scenario against the committed baseline.
"$FS" run "$SRC/examples/quickstart.json" --out "$T/run" -q
"$FS" compare "$BASE" "$T/run" --bands "$BANDS" --junit "$T/pass.xml" > "$T/pass.txt" || fail "gate fails on an unchanged run: $(cat "$T/pass.txt")"
grep -q "^PASS: 0 of 10 checks" "$T/pass.txt" || fail "summary: $(tail -1 "$T/pass.txt")"
head -1 "$T/pass.txt" | has "metric.*baseline.*current.*change.*band.*verdict" || fail "table header"
wellformed "$T/pass.xml"
grep -q 'tests="10" failures="0"' "$T/pass.xml" || fail "junit counts (pass)"

# Planted regression: the night got 4% longer (band +2%).
sed 's/"makespan_s": 28800.0/"makespan_s": 30000.0/' "$BASE" > "$T/slow.json"
set +e
"$FS" compare "$BASE" "$T/slow.json" --bands "$BANDS" --junit "$T/fail.xml" > "$T/fail.txt"; rc=$?
set -e
[ "$rc" -eq 1 ] || fail "planted regression: exit $rc, expected 1"
grep -q "^makespan_s .*REGRESSION" "$T/fail.txt" || fail "regression row: $(cat "$T/fail.txt")"
grep -q "^REGRESSION: 1 of 10" "$T/fail.txt" || fail "regression summary"
wellformed "$T/fail.xml"
grep -q '<failure type="regression"' "$T/fail.xml" && grep -q 'failures="1"' "$T/fail.xml" || fail "junit failure element"
# Within the band (+0.7%): passes.
sed 's/"makespan_s": 28800.0/"makespan_s": 29000.0/' "$BASE" > "$T/ok.json"
"$FS" compare "$BASE" "$T/ok.json" --bands "$BANDS" -q > "$T/ok.txt" || fail "within band should pass: $(cat "$T/ok.txt")"
# A vanished figure (deadline margin now null) is a regression.
sed 's/"deadline_margin_s": 20340.0/"deadline_margin_s": null/' "$BASE" > "$T/null.json"
set +e
"$FS" compare "$BASE" "$T/null.json" --bands "$BANDS" -q > "$T/null.txt"; rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q "classes.risk.deadline_margin_s.*REGRESSION" "$T/null.txt" || fail "null margin: rc $rc"

# Sweep outputs: point by point.
"$FS" sweep "$SRC/tests/cli/data/sweep_small.json" --out "$T/s1" -j2 -q
"$FS" sweep "$SRC/tests/cli/data/sweep_small.json" --out "$T/s2" -j1 -q
echo '{"bands": [{"metric": "wait_s.p99", "upper": {"abs": 0}}, {"metric": "verdict.pass", "min": 1}]}' > "$T/sb.json"
"$FS" compare "$T/s1" "$T/s2/results.jsonl" --bands "$T/sb.json" > "$T/sw.txt" || fail "sweep compare: $(tail -3 "$T/sw.txt")"
grep -q "^\[7\] wait_s.p99" "$T/sw.txt" || fail "sweep rows are per point"
head -5 "$T/s2/results.jsonl" > "$T/s3.jsonl"
set +e
"$FS" compare "$T/s1" "$T/s3.jsonl" --bands "$T/sb.json" -q > "$T/sw3.txt"; rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q "point 7 missing" "$T/sw3.txt" || fail "missing sweep point: rc $rc"

# Bad input: exit 2, one line with file:pointer; the JUnit file holds one test case in error
# naming the same line (a CI server shows it instead of "no report found"), nothing else.
xml_esc() { printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/"/\&quot;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e "s/'/\&apos;/g"; }
check_bad() {  # bands-file text, expected substring, [baseline]
  echo "$1" > "$T/bad.json"
  set +e
  "$FS" compare "${3:-$BASE}" "$T/run" --bands "$T/bad.json" --junit "$T/bad.xml" > /dev/null 2> "$T/bad.err"; local rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "bands '$1': exit $rc, expected 2"
  [ "$(wc -l < "$T/bad.err")" -eq 1 ] || fail "error not one line: $(cat "$T/bad.err")"
  grep -qF "$2" "$T/bad.err" || fail "error lacks '$2': $(cat "$T/bad.err")"
  grep -q 'tests="1" failures="0" errors="1"' "$T/bad.xml" || fail "bad input: JUnit file lacks its error test case"
  grep -qF "message=\"$(xml_esc "$(cat "$T/bad.err")")\"" "$T/bad.xml" || fail "JUnit error does not name the error: $(cat "$T/bad.xml")"
  rm -f "$T/bad.xml"
}
check_bad '{"bands": [{"metric": "makespan_s", "uper": {"rel": 0.1}}]}' "bad.json:/bands/0/uper: unknown key"
check_bad '{"bands": [{"metric": "makespan_s", "upper": {"rel": "ten"}}]}' "bad.json:/bands/0/upper/rel: expected a number"
check_bad '{"bands": [{"metric": "classes.risk.floor_atainment", "lower": {"abs": 0.1}}]}' "bad.json:/bands/0/metric: 'classes.risk.floor_atainment' is not in the baseline"
check_bad '{"bands": [' "bad.json:"
check_bad '{"bands": [{"metric": "makespan_s", "max": 1}]}' "results.jsonl" "$T/s1"
"$FS" compare --help | has -F -- "(default: \"\")" || fail "compare --help lacks --junit default"
# An unreadable baseline: the same, and no other output appears.
set +e
"$FS" compare "$T/nonexistent" "$T/run" --bands "$BANDS" --junit "$T/nb.xml" > "$T/nb.out" 2> "$T/nb.err"; rc=$?
set -e
[ "$rc" -eq 2 ] && [ ! -s "$T/nb.out" ] && grep -q '<error type="bad input"' "$T/nb.xml" && grep -qF "nonexistent" "$T/nb.xml" ||
  fail "unreadable baseline: rc $rc, $(cat "$T/nb.err")"
echo "compare.sh: ok"
