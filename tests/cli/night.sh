#!/usr/bin/env bash
# End-to-end (issue 7): each rehearsal criterion failing and passing on purpose-built nights
# beyond the default one: cascading preemption (fails -> isolation, passes once allowed), the
# night under the slurm model with a spot QOS above the normal per-user limit, timed fabric
# link/switch failures with a replayed intraday rate, and `size` on a run directory with
# --base-dir.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has

# Cascade: the urgent job preempts a batch job, which (requeued) preempts the spot job.
set +e
"$FS" rehearse "$SRC/tests/cli/data/cascade.json" --out "$T/c" > "$T/c.txt"; rc=$?
set -e
[ "$rc" -eq 1 ] || fail "cascading night should exit 1, got $rc"
grep -q "spot gives way without cascades *1 cascades.*FAIL *isolation" "$T/c.txt" || fail "cascade criterion does not fail on isolation"
grep -q '"cascade_preemptions": 1' "$T/c/metrics.json" || fail "metrics do not count the cascade"
sed 's/"max_cascade_preemptions": 0/"max_cascade_preemptions": 1/' "$SRC/tests/cli/data/cascade.json" > "$T/c1.json"
"$FS" rehearse "$T/c1.json" --out "$T/c1" -q || fail "one allowed cascade should pass"

# The night under slurm: spot jobs run past the normal QOS's 64-GPU per-user cap.
"$FS" rehearse "$SRC/examples/rehearse-slurm.json" --out "$T/s" > "$T/s.txt" || fail "slurm night should pass"
grep -q "under slurm + idle_pool" "$T/s.txt" || fail "slurm night does not run slurm inside the idle pool"
peak() { awk -F, '$2=="backtest" && $3>m {m=$3} END {print m+0}' "$1/timeline.csv"; }
[ "$(peak "$T/s")" -gt 64 ] || fail "spot backtests should exceed the normal per-user cap, peak $(peak "$T/s")"
sed 's/"qos": "spot"/"qos": "normal"/' "$SRC/examples/rehearse-slurm.json" > "$T/normal.json"
"$FS" run "$T/normal.json" --out "$T/n" > /dev/null || fail "slurm night in the normal QOS"
[ "$(peak "$T/n")" -le 64 ] || fail "in the normal QOS the backtests must stay within 64 GPUs, peak $(peak "$T/n")"

# Timed fabric failures + a replayed intraday rate.
"$FS" rehearse "$SRC/examples/rehearse-fabric-failure.json" --out "$T/f" > "$T/f.txt" || fail "fabric-failure night"
grep -q '"what": "switch L2:0"' "$T/f/metrics.json" || fail "switch failure not reported"
grep -q '"starts_during"' "$T/f/metrics.json" || fail "no per-failure figures"
grep -q '"rate_file": "traces/intraday_rate.csv"' "$T/f/scenario.resolved.json" || fail "rate file not in the resolved scenario"
awk -F, 'NR>1 && $2=="intraday" && ($9<64800 || $9>=108000) {bad=1} END {exit bad}' "$T/f/jobs.csv" \
  || fail "intraday arrivals outside the replayed span"
# A bad rate file: exit 2, one line naming file and line, no output directory.
printf 'time_s,rate_per_s\n64800,0.1\n64000,0.2\n' > "$T/rate.csv"
sed "s#traces/intraday_rate.csv#$T/rate.csv#" "$SRC/examples/rehearse-fabric-failure.json" > "$T/badrate.json"
sed -i "s#\"fabric/k8_quant.json\"#\"$SRC/examples/fabric/k8_quant.json\"#" "$T/badrate.json"
set +e
"$FS" rehearse "$T/badrate.json" --out "$T/br" 2> "$T/br.err"; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad rate file should exit 2, got $rc"
grep -q "rate.csv:3: time_s 64000 is not after" "$T/br.err" || fail "bad rate file error: $(cat "$T/br.err")"
[ ! -e "$T/br" ] || fail "bad rate file left an output directory"

# size on a run directory whose scenario had relative paths: --base-dir names their root.
"$FS" run "$SRC/examples/sacct-quant.json" --out "$T/q" > /dev/null
set +e
(cd "$T" && "$FS" size q > /dev/null 2>&1); rc=$?
set -e
[ "$rc" -eq 2 ] || fail "size without --base-dir should fail cleanly (exit 2), got $rc"
(cd "$T" && "$FS" size q --base-dir "$SRC/examples" > "$T/size.txt") || fail "size --base-dir"
grep -q "proposed" "$T/size.txt" || fail "size table"
echo OK
