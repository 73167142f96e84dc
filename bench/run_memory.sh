#!/usr/bin/env bash
# Peak memory of `floorsim run` per job on a large SWF trace, as /usr/bin/time -v reports it
# (maximum resident set size). The trace is COPIES superposed copies of the bundled KTH-SP2 log
# (28,476 jobs each; job ids offset by 100,000 per copy, records sorted by submit time), built
# in a temporary directory and removed at the end; 100 copies = 2,847,600 jobs (about 200 MB).
#   bench/run_memory.sh build/sim/cli/floorsim [COPIES] [MODEL]
# MODEL is the scheduler type (default fifo) on 10,000 nodes x 1 GPU; the default outputs are
# written (jobs.csv, metrics.json, timeline.csv) into the temporary directory. Prints the jobs,
# the peak RSS and bytes per job. Figures only: never a pass/fail test.
set -euo pipefail
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
COPIES="${2:-100}"
MODEL="${3:-fifo}"
SRC="$(cd "$(dirname "$0")/.." && pwd)"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
zcat "$SRC/traces/data/pwa/KTH-SP2-1996-2.1-cln.swf.gz" |
  awk -v c="$COPIES" '/^;/ || NF == 0 { next } { id = $1; for (k = 0; k < c; ++k) { $1 = id + 100000 * k; print } }' |
  LC_ALL=C sort -s -k2,2n -k1,1n >"$T/trace.swf"
JOBS=$(wc -l <"$T/trace.swf")
cat >"$T/scenario.json" <<JSON
{"name": "memory", "cluster": {"nodes": 10000, "gpus_per_node": 1, "node_prefix": "n"},
 "workload": {"trace": {"path": "$T/trace.swf", "format": "swf"}},
 "class_rule": {"from": "qos", "default": "batch"},
 "scheduler": {"type": "$MODEL"}, "engine": {"enforce_time_limit": false}}
JSON
/usr/bin/time -v "$BIN" run "$T/scenario.json" --out "$T/out" -q 2>"$T/time.txt"
KB=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$T/time.txt")
SECS=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$T/time.txt")
echo "run_memory.sh: $JOBS jobs ($COPIES x KTH-SP2), $MODEL on 10000x1: peak RSS $((KB / 1024)) MiB, $((KB * 1024 / JOBS)) B/job, wall $SECS"
