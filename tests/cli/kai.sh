#!/bin/bash
# End to end: the kai-quant example (KAI Queue YAML: pricing, risk and training under a parent
# queue, research beside it; quarter-GPU pricing jobs packed onto shared GPUs) runs under the kai
# model with per-class floor attainment in metrics.json; a wrong type in the YAML is reported as
# FILE:LINE with exit code 2 and no output folder.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?FLOORSIM_SOURCE_DIR not set}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$FS" run "$SRC/examples/kai-quant/scenario.json" --out "$TMP/run" > /dev/null 2> "$TMP/err" || fail "run exited $?: $(cat "$TMP/err")"
for f in metrics.json jobs.csv scenario.resolved.json; do test -f "$TMP/run/$f" || fail "no $f"; done
python3 - "$TMP/run/metrics.json" <<'PY' || fail "metrics.json: $(cat "$TMP/run/metrics.json" | head -c 400)"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["scheduler"] == "kai", m["scheduler"]
for c in ("pricing", "risk", "training", "backtest"):
    a = m["classes"][c]["floor_attainment"]
    assert 0 <= a <= 1, (c, a)
r = m["scheduler_report"]
assert r["gpu_sharing"]["packed_starts"] > 0, r["gpu_sharing"]
assert r["gpu_sharing"]["max_jobs_on_one_gpu"] >= 2, r["gpu_sharing"]
assert set(r["queues"]) == {"quant", "pricing", "risk", "training", "research"}, r["queues"].keys()
assert r["queues"]["pricing"]["parent"] == "quant"
assert m["jobs_by_state"].get("PENDING", 0) == 0, m["jobs_by_state"]
PY
head -1 "$TMP/run/jobs.csv" | grep -q 'kai_queue,kai_priority,gpu_fraction,gpu_slot' || fail "no kai columns in jobs.csv"
grep -q ',0.25,' "$TMP/run/jobs.csv" || fail "no quarter-GPU job in jobs.csv"
grep -q '"gpu_sharing": true' "$TMP/run/scenario.resolved.json" || fail "scheduler block not resolved"
# Deterministic: a second run gives byte-identical outputs.
"$FS" run "$SRC/examples/kai-quant/scenario.json" --out "$TMP/run2" > /dev/null 2>&1
cmp -s "$TMP/run/metrics.json" "$TMP/run2/metrics.json" || fail "metrics.json differs between runs"
cmp -s "$TMP/run/jobs.csv" "$TMP/run2/jobs.csv" || fail "jobs.csv differs between runs"

# Bad input: a wrong type in the Queue YAML -> FILE:LINE, exit 2, no output.
cp -r "$SRC/examples/kai-quant" "$TMP/bad"
sed -i 's/gpu: {quota: 24, overQuotaWeight: 2, limit: -1}/gpu: {quota: lots, overQuotaWeight: 2, limit: -1}/' "$TMP/bad/queues.yaml"
line=$(grep -n 'quota: lots' "$TMP/bad/queues.yaml" | cut -d: -f1)
set +e
"$FS" run "$TMP/bad/scenario.json" --out "$TMP/bad-run" 2> "$TMP/bad-err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad queues.yaml: exit $rc, expected 2"
grep -q "queues.yaml:$line: .*quota" "$TMP/bad-err" || fail "bad queues.yaml: message was: $(cat "$TMP/bad-err")"
[ ! -e "$TMP/bad-run" ] || fail "partial output after bad input"
# A fraction on a multi-GPU job is rejected with its JSON pointer.
python3 - "$SRC/examples/kai-quant/scenario.json" "$TMP/bad/frac.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["workload"]["synthetic"]["classes"][0]["gpus"] = 2
json.dump(s, open(sys.argv[2], "w"))
PY
set +e
"$FS" run "$TMP/bad/frac.json" --out "$TMP/bad-run2" 2> "$TMP/bad-err2"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "fraction with gpus 2: exit $rc, expected 2"
grep -q "/workload/synthetic/classes/0/gpus" "$TMP/bad-err2" || fail "fraction with gpus 2: message was: $(cat "$TMP/bad-err2")"
# Inline jobs asking for GPU memory: 20 GiB of an 80 GiB GPU = a quarter; four share the one GPU.
mkdir -p "$TMP/memsrc" && cp "$SRC/examples/kai-quant/queues.yaml" "$TMP/memsrc/"
cat > "$TMP/memsrc/mem.json" <<'JSON'
{"name": "kai-mem", "cluster": {"nodes": 1, "gpus_per_node": 1, "gpu_memory_mib": 81920},
 "workload": {"jobs": [
  {"id": 1, "runtime_s": 100, "gpus": 1, "class": "pricing", "gpu_memory_mib": 20480, "gpu_memory_limit_mib": 40960},
  {"id": 2, "runtime_s": 100, "gpus": 1, "class": "pricing", "gpu_memory_mib": 20480},
  {"id": 3, "runtime_s": 100, "gpus": 1, "class": "pricing", "gpu_memory_mib": 20480},
  {"id": 4, "runtime_s": 100, "gpus": 1, "class": "pricing", "gpu_memory_mib": 20480},
  {"id": 5, "runtime_s": 100, "gpus": 1, "class": "pricing", "gpu_memory_mib": 20480}]},
 "scheduler": {"type": "kai", "manifests": ["queues.yaml"], "gpu_sharing": true}}
JSON
"$FS" run "$TMP/memsrc/mem.json" --out "$TMP/mem" > /dev/null 2> "$TMP/mem-err" || fail "gpu_memory_mib run: $(cat "$TMP/mem-err")"
starts=$(awk -F, 'NR > 1 {print $10}' "$TMP/mem/jobs.csv" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
[ "$starts" = " 4 0; 1 100;" ] || fail "gpu_memory_mib: start times were $starts"
grep -q ',0.25,0:0' "$TMP/mem/jobs.csv" || fail "gpu_memory_mib: no 0.25 share on GPU 0:0 in jobs.csv"
echo "ok"
