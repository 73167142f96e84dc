#!/usr/bin/env bash
# End-to-end: floorsim rehearse on the built-in night (exit 0, verdict table, run's files plus
# verdict.json), a failing example (exit 1, layer named), bad input (exit 2, one line, no output
# directory), determinism, --growth prints a headroom figure, --help lists defaults.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has

"$FS" rehearse --out "$T/n1" > "$T/n1.txt" || fail "default night should pass (exit $?)"
grep -q "verdict: PASS" "$T/n1.txt" || fail "no PASS verdict line"
grep -q "var finishes with margin" "$T/n1.txt" || fail "no var criterion"
grep -q "intraday p99 wait holds" "$T/n1.txt" || fail "no intraday criterion"
for f in metrics.json jobs.csv timeline.csv scenario.resolved.json verdict.json; do
  [ -s "$T/n1/$f" ] || fail "missing $f"
done
grep -q '"pass": true' "$T/n1/verdict.json" || fail "verdict.json pass"
grep -q '"node": "gpu001"' "$T/n1/scenario.resolved.json" || fail "injected failure not in the resolved scenario"

# The example file is the built-in night: same outputs, byte for byte.
"$FS" rehearse "$SRC/examples/rehearse-default.json" --out "$T/n2" -q || fail "example default night"
for f in metrics.json jobs.csv timeline.csv verdict.json; do
  cmp -s "$T/n1/$f" "$T/n2/$f" || fail "$f differs between the built-in night and the example"
done
"$FS" rehearse --print-default | "$FS" validate -q /dev/stdin || fail "--print-default does not validate"

# Over-subscribed floors: exit 1 and the tool says no configuration can fix it.
set +e
"$FS" rehearse "$SRC/examples/rehearse-oversubscribed.json" --out "$T/o" > "$T/o.txt"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "oversubscribed night should exit 1, got $rc"
grep -q "no configuration can fix it" "$T/o.txt" || fail "no infeasibility message"
grep -q "FAIL.*floor" "$T/o.txt" || fail "failed criterion does not name the floor layer"
[ -s "$T/o/verdict.json" ] || fail "failing rehearsal still writes its outputs"

# Bad input: exit 2, one line naming the file and pointer, no output directory.
echo '{"rehearse": {"min_margin_s": "soon"}}' > "$T/bad.json"
set +e
"$FS" rehearse "$T/bad.json" --out "$T/bad" 2> "$T/bad.err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad input should exit 2, got $rc"
[ "$(wc -l < "$T/bad.err")" -eq 1 ] || fail "error is not one line"
grep -q "bad.json:/rehearse/min_margin_s" "$T/bad.err" || fail "error does not name file and pointer"
[ ! -e "$T/bad" ] || fail "bad input left an output directory"
set +e
"$FS" rehearse "$T/missing.json" --out "$T/bad" 2> /dev/null; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "missing file should exit 2"

# --growth prints a headroom figure and records it in verdict.json.
"$FS" rehearse --growth --out "$T/g" > "$T/g.txt" || fail "growth run exit"
grep -q "growth headroom: x" "$T/g.txt" || fail "no growth figure"
grep -q '"max_growth"' "$T/g/verdict.json" || fail "verdict.json lacks growth"

# floorsim size: from a scenario and from a run directory; deadline floors fit; bad input exits 2.
"$FS" size "$SRC/examples/rehearse-default.json" --json "$T/size.json" > "$T/size.txt" || fail "size exit"
grep -q "proposed" "$T/size.txt" || fail "size table"
grep -q '"deadline_floors_fit": true' "$T/size.json" || fail "size json"
"$FS" size "$T/n1" > "$T/size2.txt" || fail "size on a run directory"
grep -q "^var " "$T/size2.txt" || fail "size on a run directory lists var"
set +e
"$FS" size "$T/bad.json" > /dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "size bad input should exit 2, got $rc"

"$FS" rehearse --help > "$T/help.txt"
grep -q -- "--growth" "$T/help.txt" || fail "--help"
grep -q "default" "$T/help.txt" || fail "--help shows defaults"
echo OK
