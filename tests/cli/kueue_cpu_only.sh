#!/bin/bash
# GPU optional (issue 24): CPU-only jobs under the Kueue and KAI models, end to end. The
# examples/kueue-cpu-only site runs to completion with ETL jobs (no GPU) admitted by cpu quota,
# placed on the CPU nodes and, borrowing training's cpu, beside GPU pods on the GPU nodes; a
# CPU-only job no node can hold, or one under a model that places GPUs only, is refused at load
# with one line and exit 2; the same jobs run under the kai model.
set -euo pipefail
source "$(dirname "$0")/preamble.bash"

EX="$SRC/examples/kueue-cpu-only"
"$FS" run "$EX/scenario.json" --out "$T/run" -q 2> "$T/err" || fail "run exited $?: $(cat "$T/err")"
! has -i 'not checked' < "$T/err" || fail "the kueue model still warns that CPUs are not checked: $(cat "$T/err")"
python3 - "$T/run/jobs.csv" <<'PY' || fail "jobs.csv: $(cat "$T/run/jobs.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 17, len(rows)
assert all(r["state"] == "COMPLETED" for r in rows), [(r["job_id"], r["state"]) for r in rows]
etl = [r for r in rows if r["class"] == "etl"]
assert all(r["gpus"] == "0" for r in etl)
on_cpu = [r for r in etl if r["node_list"].startswith("cpu")]
on_gpu = [r for r in etl if r["node_list"].startswith("gpu")]
assert on_cpu and on_gpu, ("ETL on the CPU nodes and, borrowing, on the GPU nodes", len(on_cpu), len(on_gpu))
# A GPU node ran an ETL job while a training job ran there: mixed on one node.
def overlap(a, b):
    return float(a["start_s"]) < float(b["end_s"]) and float(b["start_s"]) < float(a["end_s"])
train = [r for r in rows if r["class"] == "training"]
assert any(e["node_list"] == t["node_list"] and overlap(e, t) for e in on_gpu for t in train)
# Quota admitted it, the nodes had no 16 free CPUs: it waited for nodes.
assert any(r["reason"] == "NoNodes" and float(r["wait_s"]) > 0 for r in etl)
PY

# Refused at load: a CPU-only job larger than every node, and one under the fifo model.
python3 - "$EX/scenario.json" "$T" <<'PY'
import json, sys
sc = json.load(open(sys.argv[1]))
sc["scheduler"]["manifests"] = [sys.argv[1].rsplit("/", 1)[0] + "/queues.yaml"]
big = json.loads(json.dumps(sc))
big["workload"]["jobs"][5]["cpus"] = 200
json.dump(big, open(sys.argv[2] + "/big.json", "w"))
fifo = json.loads(json.dumps(sc))
fifo["scheduler"] = {"type": "fifo"}
json.dump(fifo, open(sys.argv[2] + "/fifo.json", "w"))
kai = json.loads(json.dumps(sc))
kai["scheduler"] = {"type": "kai", "manifests": [sys.argv[2] + "/kai.yaml"], "queue_map": {"*": "site"},
                    "requests_per_gpu": {"cpu": 8, "memory": "64Gi"}}
json.dump(kai, open(sys.argv[2] + "/kai.json", "w"))
PY
set +e
"$FS" run "$T/big.json" --out "$T/big" -q 2> "$T/err"; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "a CPU-only job of 200 CPUs: expected exit 2, got $rc: $(cat "$T/err")"
[ "$(wc -l < "$T/err")" -eq 1 ] || fail "expected one error line: $(cat "$T/err")"
has -E 'big\.json:/workload: job 6 asks for 200 CPUs .* expected a CPU-only job that fits the nodes' < "$T/err" ||
  fail "error line: $(cat "$T/err")"
[ ! -e "$T/big" ] || fail "a refused scenario wrote an output folder"
set +e
"$FS" run "$T/fifo.json" --out "$T/fifo" -q 2> "$T/err"; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "CPU-only jobs under fifo: expected exit 2, got $rc"
has 'the fifo model places GPUs only' < "$T/err" || fail "fifo refusal: $(cat "$T/err")"

# The same site under the kai model: one Queue, CPU-only and GPU jobs all complete.
cat > "$T/kai.yaml" <<'YAML'
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: site}
spec:
  resources:
    gpu: {quota: -1, limit: -1, overQuotaWeight: 1}
    cpu: {quota: -1, limit: 200000, overQuotaWeight: 1}
    memory: {quota: -1, limit: -1, overQuotaWeight: 1}
YAML
"$FS" run "$T/kai.json" --out "$T/kai" -q 2> "$T/err" || fail "kai run exited $?: $(cat "$T/err")"
python3 - "$T/kai/jobs.csv" <<'PY' || fail "kai jobs.csv: $(cat "$T/kai/jobs.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert all(r["state"] == "COMPLETED" for r in rows), [(r["job_id"], r["state"]) for r in rows]
assert any(r["class"] == "etl" and r["node_list"].startswith("gpu") for r in rows)
PY
echo "kueue_cpu_only.sh: CPU-only jobs run under kueue and kai; unfit ones refused at load"
