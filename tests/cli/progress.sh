#!/usr/bin/env bash
# End-to-end: the long verbs (run, rehearse and its --growth search, sweep, fabric) draw one progress
# line on stderr when it is a terminal (here a pseudo-terminal from script(1)), and print
# nothing there when it is not, or with -q; --progress always/never overrides.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has
S="$SRC/examples/quickstart.json"

# Not a terminal: nothing on stderr.
"$FS" run "$S" --out "$T/a" > /dev/null 2> "$T/a.err" || fail "run"
[ ! -s "$T/a.err" ] || fail "run printed progress to a non-terminal: $(cat "$T/a.err")"
# --progress always: the bar, ending with every job done and a newline.
"$FS" run "$S" --out "$T/b" -q --progress always 2> "$T/b.err" || fail "run --progress always"
grep -q 'run \[#*' "$T/b.err" && grep -q 'jobs, simulated' "$T/b.err" || fail "no run progress line: $(cat -v "$T/b.err")"
[ "$(tail -c 1 "$T/b.err" | od -An -c | tr -d ' ')" = '\n' ] || fail "progress line not ended"
cmp -s "$T/a/jobs.csv" "$T/b/jobs.csv" && cmp -s "$T/a/metrics.json" "$T/b/metrics.json" || fail "progress changed the run's outputs"
"$FS" run "$S" --out "$T/c" --progress never 2> "$T/c.err" > /dev/null && [ ! -s "$T/c.err" ] || fail "--progress never"

if command -v script > /dev/null; then
  # A terminal: auto draws; -q keeps it quiet.
  script -qec "'$FS' run '$S' --out '$T/d' > /dev/null" /dev/null > "$T/d.tty" || fail "run on a terminal"
  grep -q 'jobs, simulated' "$T/d.tty" || fail "no progress on a terminal: $(cat -v "$T/d.tty")"
  script -qec "'$FS' run '$S' --out '$T/e' -q" /dev/null > "$T/e.tty" || fail "run -q on a terminal"
  [ ! -s "$T/e.tty" ] || fail "-q still drew progress: $(cat -v "$T/e.tty")"
else
  echo "progress.sh: script(1) not installed; terminal cases not run"
fi

# rehearse and its growth search.
"$FS" rehearse "$SRC/examples/rehearse-default.json" --out "$T/r" -q --progress always 2> "$T/r.err" || true
grep -q 'rehearse \[' "$T/r.err" || fail "no rehearse progress: $(cat -v "$T/r.err" | tail -c 300)"
"$FS" rehearse --out "$T/g" --growth -q --progress always 2> "$T/g.err" || true
grep -q 'growth: run 2 at load x' "$T/g.err" || fail "no growth progress: $(cat -v "$T/g.err" | tail -c 300)"
# sweep keeps its bar.
"$FS" sweep "$SRC/tests/cli/data/sweep_small.json" --out "$T/s" -q --progress always -j2 2> "$T/s.err"
grep -q 'sweep \[#* *\] 8/8' "$T/s.err" || fail "no sweep progress: $(cat -v "$T/s.err" | tail -c 300)"
# fabric: the pack's steps, and the worst-failure search counting its candidates.
"$FS" fabric "$SRC/examples/fabric/committee.json" --out "$T/f" -q --progress always 2> "$T/f.err"
grep -q 'fabric: traffic' "$T/f.err" && grep -q 'fabric: worst failure \[#* *\] [0-9]*/[0-9]*' "$T/f.err" ||
  fail "no fabric progress: $(cat -v "$T/f.err" | tail -c 300)"
"$FS" fabric "$SRC/examples/fabric/committee.json" --out "$T/f2" -q 2> "$T/f2.err"
[ ! -s "$T/f2.err" ] || fail "fabric -q printed: $(cat "$T/f2.err")"
cmp -s <(grep -v command_line "$T/f/signoff.json") <(grep -v command_line "$T/f2/signoff.json") || fail "progress changed the fabric pack"
echo "progress.sh: ok"
