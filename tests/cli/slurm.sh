#!/bin/bash
# End to end: the slurm-quant example (slurm.conf + sacctmgr dump + a DAILY reservation) runs
# under the slurm model; a malformed slurm.conf line is reported as FILE:LINE with exit code 2.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?FLOORSIM_SOURCE_DIR not set}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$FS" run "$SRC/examples/slurm-quant/scenario.json" --out "$TMP/run" 2> "$TMP/err" || fail "run exited $?: $(cat "$TMP/err")"
for f in metrics.json jobs.csv scenario.resolved.json; do test -f "$TMP/run/$f" || fail "no $f"; done
grep -q '"var_window"' "$TMP/run/metrics.json" || fail "no reservation figures in metrics.json"
grep -q '"idle_gpu_s"' "$TMP/run/metrics.json" || fail "no idle reserved GPU-seconds"
head -1 "$TMP/run/jobs.csv" | grep -q 'priority,planned_start_s,eff_qos,started_by' || fail "no slurm columns in jobs.csv"
grep -q 'bf_resolution_s' "$TMP/run/scenario.resolved.json" || fail "defaults not written to scenario.resolved.json"
# every job of the example ends (none left pending)
if cut -d, -f13 "$TMP/run/jobs.csv" | tail -n +2 | grep -q PENDING; then fail "a job never started"; fi
# slurm.conf keys irrelevant to scheduling (SlurmctldHost, SelectTypeParameters) are accepted quietly
if grep -q 'SlurmctldHost\|SelectTypeParameters' "$TMP/err"; then fail "a quiet slurm.conf key was warned about"; fi

# Bad input: FILE:LINE and exit code 2.
cp -r "$SRC/examples/slurm-quant" "$TMP/bad"
echo "PriorityMaxAge=soon" >> "$TMP/bad/slurm.conf"
line=$(wc -l < "$TMP/bad/slurm.conf")
set +e
"$FS" run "$TMP/bad/scenario.json" --out "$TMP/bad-run" 2> "$TMP/bad-err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad slurm.conf: exit $rc, expected 2"
grep -q "slurm.conf:$line: PriorityMaxAge=soon" "$TMP/bad-err" || fail "bad slurm.conf: message was: $(cat "$TMP/bad-err")"
# A malformed PURGE_COMP time: the JSON pointer of the flag and exit code 2.
cp -r "$SRC/examples/slurm-quant" "$TMP/badflag"
sed -i 's/"period": "DAILY",/"period": "DAILY", "flags": ["PURGE_COMP=soon"],/' "$TMP/badflag/scenario.json"
set +e
"$FS" run "$TMP/badflag/scenario.json" --out "$TMP/badflag-run" 2> "$TMP/badflag-err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad PURGE_COMP: exit $rc, expected 2"
grep -q "/scheduler/reservations/0/flags/0" "$TMP/badflag-err" || fail "bad PURGE_COMP: message was: $(cat "$TMP/badflag-err")"
test ! -e "$TMP/badflag-run" || fail "bad PURGE_COMP: partial output written"
echo "ok"
