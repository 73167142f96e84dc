#!/usr/bin/env bash
# End-to-end: floorsim report (issue 8). Renders a run report and a sweep report, checks they are
# self-contained (no script, no external reference), then loads them in headless Chromium
# (Debian's chromium, .ci/setup installs it) and checks the rendered DOM has every chart: an
# <svg> with the chart's id and title, with drawn content. Skips (exit 77, ctest
# SKIP_RETURN_CODE) only when no chromium binary exists at all.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$FS" rehearse "$SRC/examples/rehearse-default.json" --out "$T/run" -q
"$FS" report "$T/run" -o "$T/run.html" 2> /dev/null || fail "report of a run dir"
"$FS" sweep "$SRC/tests/cli/data/sweep_small.json" --out "$T/sw" -j2 -q
"$FS" report "$T/sw" -o "$T/sw.html" 2> /dev/null || fail "report of a sweep dir"
"$FS" report "$T/sw" -o "$T/sw1.html" --metric classes.var.floor_attainment 2> /dev/null || fail "report --metric"
grep -q 'id="chart-sweep-2-classes-var-floor-attainment"' "$T/sw1.html" || fail "--metric chart missing"

# Categorical axis (scheduler names) in a run-based sweep.
"$FS" sweep "$SRC/examples/sweeps/quickstart-schedulers.json" --out "$T/qs" -q
"$FS" report "$T/qs" -o "$T/qs.html" 2> /dev/null || fail "report of a categorical sweep"
grep -q 'id="chart-sweep-0-utilization"' "$T/qs.html" && grep -q "scheduler (categories)" "$T/qs.html" || fail "categorical axis chart"

for f in run sw; do
  ! grep -qi '<script' "$T/$f.html" || fail "$f.html has a script"
  ! grep -Eqi '(src|href)=' "$T/$f.html" || fail "$f.html references another resource"
  ! grep -Eo 'https?://[^"]*' "$T/$f.html" | grep -v '^http://www.w3.org/2000/svg$' | grep -q . || fail "$f.html has a URL"
done

# Bad input: exit 2, one line, no file.
set +e
"$FS" report "$T/nothing" -o "$T/bad.html" 2> "$T/bad.err"; rc=$?
set -e
[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/bad.err")" -eq 1 ] && [ ! -e "$T/bad.html" ] || fail "missing dir: rc $rc $(cat "$T/bad.err")"
mkdir "$T/broken"; cp "$T/run/metrics.json" "$T/broken/"; printf 'time_s,class\n1,x\n' > "$T/broken/timeline.csv"
set +e
"$FS" report "$T/broken" -o "$T/bad.html" 2> "$T/bad.err"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "timeline.csv:1: has no column 'gpus_allocated'" "$T/bad.err" && [ ! -e "$T/bad.html" ] || fail "bad timeline: rc $rc $(cat "$T/bad.err")"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -z "$CHROMIUM" ] && [ -x /usr/bin/chromium ] && CHROMIUM=/usr/bin/chromium
if [ -z "$CHROMIUM" ]; then
  echo "SKIP: no chromium (apt-get install chromium; .ci/setup installs it)"
  exit 77
fi
render() {  # html -> rendered DOM
  HOME="$T" timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$T/profile" \
    --dump-dom "file://$1" > "$1.dom" 2> "$T/chromium.err" || fail "chromium failed on $1: $(tail -3 "$T/chromium.err")"
  [ -s "$1.dom" ] || fail "chromium rendered nothing for $1"
}
render "$T/run.html"
for id in chart-gpus-var chart-gpus-eod chart-gpus-intraday chart-gpus-training chart-gpus-backtest chart-wait-cdf \
          chart-deadline-margins chart-gantt chart-preemptions; do
  grep -q "<svg id=\"$id\"" "$T/run.html.dom" || fail "rendered run report lacks <svg id=$id>"
done
for t in "GPUs allocated to var over time against its floor" "Wait time CDF per class" "Worst deadline margin per class" \
         "Largest jobs by GPU-hours" "Preemptions, requeues and lost GPU-hours per class"; do
  grep -q "<title>$t" "$T/run.html.dom" || fail "rendered run report lacks the chart titled '$t'"
done
# Charts carry drawn marks: step lines, Gantt bars, CDF steps.
[ "$(grep -o '<path d="M' "$T/run.html.dom" | wc -l)" -ge 15 ] || fail "too few drawn lines"
[ "$(grep -o '<rect x=' "$T/run.html.dom" | wc -l)" -ge 40 ] || fail "too few bars"
grep -q "preempted" "$T/run.html.dom" || fail "no preempted job marked in the Gantt view"

render "$T/sw.html"
for a in 0 1 2; do
  for m in utilization wait-s-p99 classes-var-deadline-margin-s; do
    grep -q "<svg id=\"chart-sweep-$a-$m\"" "$T/sw.html.dom" || fail "rendered sweep report lacks chart-sweep-$a-$m"
  done
done
[ "$(grep -o '<circle ' "$T/sw.html.dom" | wc -l)" -ge 48 ] || fail "too few sweep points drawn"
echo "report.sh: ok"
