#!/usr/bin/env bash
# Writes the outputs (jobs.csv, metrics.json) of every slurm scenario in examples/ and of KTH-SP2
# under the slurm model (100x1, 25x4, 13x8 GPUs; multifactor with Fair Tree, with classic
# fair-share, and basic) into OUTDIR/<name>/, so that a speed change can be checked to leave
# them byte-identical:
#   bench/slurm_outputs.sh build/sim/cli/floorsim /tmp/before   # on the old tree
#   bench/slurm_outputs.sh build/sim/cli/floorsim /tmp/after    # on the new one
#   diff -r /tmp/before /tmp/after                              # must print nothing
# Reads the KTH trace bundled in traces/data/pwa/. Takes about 5 s.
set -euo pipefail
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
OUT="$2"
SRC="$(cd "$(dirname "$0")/.." && pwd)"
TRACE="$SRC/traces/data/pwa/KTH-SP2-1996-2.1-cln.swf.gz"
rm -rf "$OUT" && mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mf='"type": "slurm", "priority_type": "multifactor", "priority_weight_age": 1000, "priority_weight_fairshare": 10000, "priority_weight_jobsize": 1000'
kth() {  # kth NAME NODES GPUS SCHEDULER-FIELDS
  printf '{"name": "%s", "cluster": {"nodes": %s, "gpus_per_node": %s, "node_prefix": "sp"},
 "workload": {"trace": {"path": "%s", "format": "swf"}}, "class_rule": {"from": "qos", "default": "batch"},
 "scheduler": {%s}, "engine": {"enforce_time_limit": false}}\n' "$1" "$2" "$3" "$TRACE" "$4" > "$T/$1.json"
}
kth kth100x1 100 1 "$mf"
kth kth25x4 25 4 "$mf"
kth kth13x8 13 8 "$mf"
kth kth100x1-classic 100 1 "$mf, \"fair_tree\": false"
kth kth100x1-basic 100 1 '"type": "slurm", "priority_type": "basic"'
run() {  # run SCENARIO NAME
  (cd "$(dirname "$1")" && "$BIN" run "$1" --out "$OUT/$2" -q) 2>"$OUT/$2.err" || echo "exit $?" >>"$OUT/$2.err"
  rm -f "$OUT/$2/timeline.csv"
}
cd "$SRC"
for s in $(grep -rl '"slurm"' examples --include=*.json | grep -v -e '^examples/lint/' -e '^examples/sweeps/' | sort); do
  run "$SRC/$s" "$(echo "${s%.json}" | tr / _)"
done
for s in "$T"/*.json; do run "$s" "$(basename "${s%.json}")"; done
echo "slurm_outputs.sh: $(ls -d "$OUT"/*/ | wc -l) scenarios in $OUT"
