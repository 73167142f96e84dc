#!/usr/bin/env bash
# End-to-end: warnings (what floorsim reads but cannot model) reach the user once, from every
# model, and never beside an error. `run` prints a Kueue model's warnings (they used to reach
# metrics.json only); `sweep` prints each once for all its points, the same with 1 and 2
# threads; `lint` reports what `run` would warn about; bad input prints its one error line alone.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has
P="$SRC/tests/cli/data/k8s/provisioning.json"  # Kueue's provisioning example: 3 warnings

"$FS" run "$P" --out "$T/run" -q 2> "$T/run.err" || fail "run: $(cat "$T/run.err")"
[ "$(grep -c '^floorsim: warning: .*provisioning-setup.yaml:[0-9]*: ' "$T/run.err")" -eq 3 ] || fail "run: expected 3 Kueue warnings: $(cat "$T/run.err")"
[ "$(wc -l < "$T/run.err")" -eq 3 ] || fail "run: other lines on stderr: $(cat "$T/run.err")"

python3 -c 'import json, sys; print(json.dumps({"name": "w", "base": sys.argv[1], "mode": "grid", "axes": [
  {"name": "delay", "pointer": "/scheduler/provisioning_request/delay_s", "values": [0, 100, 200, 300]}]}))' "$P" > "$T/sweep.json"
"$FS" sweep "$T/sweep.json" --out "$T/s1" -j1 -q 2> "$T/s1.err" || fail "sweep -j1: $(cat "$T/s1.err")"
"$FS" sweep "$T/sweep.json" --out "$T/s2" -j2 -q 2> "$T/s2.err" || fail "sweep -j2: $(cat "$T/s2.err")"
cmp -s "$T/s1.err" "$T/s2.err" || fail "sweep stderr differs between 1 and 2 threads"
[ "$(sort "$T/s1.err" | uniq -d | wc -l)" -eq 0 ] || fail "sweep printed a warning twice: $(sort "$T/s1.err" | uniq -d)"
sort "$T/run.err" > "$T/run.sorted"
sort "$T/s1.err" | comm -23 "$T/run.sorted" - | has . && fail "sweep lacks a warning run gives: $(sort "$T/s1.err" | comm -23 "$T/run.sorted" -)"

set +e
"$FS" lint "$SRC/examples/lint/run-warning/fail.json" > "$T/lint" 2>&1; rc=$?
set -e
[ "$rc" -eq 1 ] && has '\[run-warning\] .*places GPUs only' < "$T/lint" || fail "lint: exit $rc: $(cat "$T/lint")"

# slurm.conf's key overrides the block's (a warning), then a job names a partition slurm.conf
# lacks: the model refuses it, and the error line stands alone.
D="$SRC/tests/app/data"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["scheduler"]["slurm_conf"] = sys.argv[2]
d["workload"]["jobs"] = [{"id": 1, "runtime_s": 60, "gpus": 1, "partition": "nope"}]; print(json.dumps(d))' \
  "$D/tune_conf.json" "$D/tune_slurm.conf" > "$T/bad.json"
"$FS" run "$D/tune_conf.json" --out "$T/conf" -q 2> "$T/conf.err" || fail "run tune_conf.json"
has "overrides" < "$T/conf.err" || fail "test set-up: tune_conf.json no longer warns"
set +e
"$FS" run "$T/bad.json" --out "$T/bad" 2> "$T/bad.err"; rc=$?
set -e
[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/bad.err")" -eq 1 ] && has "nope" < "$T/bad.err" || fail "bad input: exit $rc, stderr: $(cat "$T/bad.err")"
# impact loads the scenario (a warning), then finds no change to analyse: the error alone.
set +e
"$FS" impact "$SRC/examples/lint/run-warning/fail.json" > /dev/null 2> "$T/impact.err"; rc=$?
set -e
[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/impact.err")" -eq 1 ] && has "no changes" < "$T/impact.err" || fail "impact: exit $rc, stderr: $(cat "$T/impact.err")"
# Verbs that run a scenario more than once print each warning once: cost runs a scenario with
# capacity blocks twice (had and not had), rehearse --growth runs it again per growth step.
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
d["scheduler"] = {"type": "slurm", "slurm_conf": sys.argv[2], "priority_weight_age": 5}; print(json.dumps(d))' \
  "$SRC/examples/cost/night.json" "$D/tune_slurm.conf" > "$T/twice.json"
"$FS" cost "$T/twice.json" --prices "$SRC/examples/cost/prices.json" > /dev/null 2> "$T/cost.err" || fail "cost: $(cat "$T/cost.err")"
has "overrides" < "$T/cost.err" || fail "test set-up: the cost scenario no longer warns"
[ "$(sort "$T/cost.err" | uniq -d | wc -l)" -eq 0 ] || fail "cost printed a warning twice: $(sort "$T/cost.err" | uniq -d)"
set +e
"$FS" rehearse "$T/twice.json" --growth --out "$T/rehearse" -q 2> "$T/rehearse.err"; rc=$?
set -e
[ "$rc" -le 1 ] && has "overrides" < "$T/rehearse.err" || fail "rehearse --growth: exit $rc: $(cat "$T/rehearse.err")"
[ "$(sort "$T/rehearse.err" | uniq -d | wc -l)" -eq 0 ] || fail "rehearse --growth printed a warning twice: $(sort "$T/rehearse.err" | uniq -d)"
echo "warnings.sh: run prints the Kueue model's 3 warnings; sweep prints each once (1 = 2 threads); lint reports run-warning; an error stands alone; cost and rehearse --growth print each once"
