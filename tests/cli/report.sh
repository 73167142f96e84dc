#!/usr/bin/env bash
# End-to-end: floorsim report. Renders a run, a sweep and a review report, checks they are
# self-contained (no script, no external reference), then loads them in headless Chromium
# (Debian's chromium, .ci/setup installs it) and checks the rendered DOM has every chart: an
# <svg> with the chart's id and title, with drawn content; that each report opens with its
# summary (question, verdict, key figures in h:mm / % / GPU-hours) and ends with its footer
# (version, commit, input SHA-256s); that a sweep draws and counts the points with no value and
# flags an axis that changes nothing. Keeps a screenshot of each report under
# <build>/report-screenshots/. Skips (exit 77, ctest SKIP_RETURN_CODE) only when no chromium
# binary exists at all.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has

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

# A review directory (floorsim review --out): its HTML page.
python3 "$SRC/examples/review/make_sacct.py" "$T/sacct.txt"
"$FS" review "$T/sacct.txt" --entitlements "$SRC/examples/review/entitlements.json" --out "$T/rv" > /dev/null
"$FS" report "$T/rv" -o "$T/rv.html" 2> /dev/null || fail "report of a review dir"

# Summary first, human units, footer with version and input hashes.
[ "$(grep -n 'id="summary"' "$T/run.html" | cut -d: -f1)" -lt "$(grep -n '<svg' "$T/run.html" | head -1 | cut -d: -f1)" ] || fail "run summary is not before the charts"
grep -q '<b>Question:</b>' "$T/run.html" && grep -q '<b>Verdict:</b>' "$T/run.html" || fail "run summary lacks question or verdict"
grep -q '<td>makespan (h:mm)</td><td>[0-9]*:[0-5][0-9]</td>' "$T/run.html" || fail "makespan not in h:mm"
grep -q "floorsim $("$FS" --version | awk '{print $2}') (commit " "$T/run.html" || fail "footer lacks the version"
grep -q "<code>$(sha256sum < "$T/run/metrics.json" | cut -c1-64)</code> metrics.json" "$T/run.html" || fail "footer lacks metrics.json SHA-256"
grep -q '<td>GPU utilization (%)</td>' "$T/sw.html" || fail "sweep summary: utilization not in words and %"
grep -q 'p99 wait (h:mm) by load' "$T/sw.html" || fail "sweep chart title not in words"

# A sweep whose VaR batch misses at some points (no margin) and whose first axis changes nothing:
# every point drawn, the missing ones as crosses and counted, the axis flagged.
mkdir "$T/miss"
cat > "$T/miss/sweep.json" <<'JSON'
{"name": "miss", "kind": "scenario", "mode": "grid", "points": 4, "rehearse": true, "description": "Does VaR finish by 06:00?",
 "axes": [{"name": "var_floor", "pointer": "/classes/var/floor_gpus", "values": [64, 96]},
          {"name": "load", "pointer": "/workload/synthetic/load_multiplier", "values": [1, 2]}]}
JSON
for i in 0 1 2 3; do
  f=$((i / 2 ? 96 : 64)); l=$((i % 2 + 1))
  if [ "$l" = 1 ]; then m=7200; p=true; else m=null; p=false; fi
  echo "{\"axes\":{\"load\":$l,\"var_floor\":$f},\"index\":$i,\"metrics\":{\"classes\":{\"var\":{\"deadline_margin_s\":$m,\"deadline_misses\":$((l - 1))}},\"utilization\":0.5},\"verdict\":{\"pass\":$p}}"
done > "$T/miss/results.jsonl"
"$FS" report "$T/miss" -o "$T/miss.html" 2> /dev/null || fail "report of the missing-points sweep"
grep -q 'id="noop-var-floor"' "$T/miss.html" || fail "no-op axis var_floor not flagged"
! grep -q 'id="noop-load"' "$T/miss.html" || fail "axis load flagged as no-op"
grep -q 'id="chart-sweep-1-classes-var-deadline-margin-s-caption">4 points; verdict failed at 2 (red); 2 with no var deadline margin' "$T/miss.html" ||
  fail "missing points not counted: $(grep -o 'chart-sweep-1-classes-var-deadline-margin-s-caption">[^<]*' "$T/miss.html")"
[ "$(grep -c 'class="pt missing"' "$T/miss.html")" -eq 4 ] || fail "missing points not drawn (2 per axis)"
grep -q '<b>Question:</b> Does VaR finish by 06:00?' "$T/miss.html" && grep -q 'held at 2 of 4 points, failed at 2' "$T/miss.html" || fail "sweep summary"
grep -q '<td>var deadline margin (h:mm)</td><td>2:00</td>' "$T/miss.html" || fail "deadline margin not in h:mm"
# h:mm axes tick on whole minutes: within a chart no two y labels read alike (a margin range of
# a few seconds once printed 3:37 twice).
for f in sw miss; do
  dup=$(awk '/<svg /{n++} /class="ty"/{match($0, /class="ty">[^<]*</); k=n" "substr($0, RSTART, RLENGTH); if (seen[k]++) print k}' "$T/$f.html")
  [ -z "$dup" ] || fail "$f.html repeats a y tick label: $dup"
done

for f in run sw rv; do
  ! grep -qi '<script' "$T/$f.html" || fail "$f.html has a script"
  ! grep -Eqi '(src|href)=' "$T/$f.html" || fail "$f.html references another resource"
  ! grep -Eo 'https?://[^"]*' "$T/$f.html" | grep -v '^http://www.w3.org/2000/svg$' | has . || fail "$f.html has a URL"
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

# What a reader needs is in the rendered page of each report: the summary, every chart of the
# source (by id), the missing points when the data has them. A screenshot of each is kept under
# the build tree (build/report-screenshots/) as CI's artefact.
render "$T/miss.html"
ART="${FLOORSIM_ARTEFACT_DIR:-$(cd "$(dirname "$FS")/../.." && pwd)/report-screenshots}"
mkdir -p "$ART"
render "$T/rv.html"
for id in review-classes review-use review-wait review-capacity review-pileups review-rebalance review-alerts review-monthly review-weekly; do
  grep -q "<section id=\"$id\">" "$T/rv.html.dom" || fail "rendered review report lacks section $id"
done
for f in run sw miss rv; do
  grep -q '<section id="summary">' "$T/$f.html.dom" || fail "rendered $f report lacks its summary"
  grep -q '<footer id="footer"' "$T/$f.html.dom" || fail "rendered $f report lacks its footer"
  for id in $(grep -o '<svg id="[^"]*"' "$T/$f.html" | cut -d'"' -f2); do
    grep -q "<svg id=\"$id\"" "$T/$f.html.dom" || fail "rendered $f report lacks chart $id"
  done
  HOME="$T" timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$T/profile" \
    --window-size=1200,2400 --screenshot="$ART/report-$f.png" "file://$T/$f.html" > /dev/null 2> "$T/chromium.err" ||
    fail "chromium screenshot of $f failed: $(tail -3 "$T/chromium.err")"
  [ "$(head -c 8 "$ART/report-$f.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] || fail "report-$f.png is not a PNG"
done
[ "$(grep -c 'class="pt missing"' "$T/miss.html.dom")" -eq 4 ] || fail "rendered sweep report lacks the missing points"
grep -q 'id="noop-var-floor"' "$T/miss.html.dom" || fail "rendered sweep report lacks the no-op axis"
echo "report.sh: ok (screenshots in $ART)"
