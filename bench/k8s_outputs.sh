#!/usr/bin/env bash
# Writes the outputs (jobs.csv, metrics.json) of every scenario that uses the kueue or kai model
# (examples/, tests/cli/data/) into OUTDIR/<name>/, so that a change can be checked to leave
# them byte-identical, as bench/slurm_outputs.sh does for the slurm model:
#   bench/k8s_outputs.sh /work/main/build/sim/cli/floorsim /tmp/before
#   bench/k8s_outputs.sh build/sim/cli/floorsim /tmp/after
#   diff -r /tmp/before /tmp/after      # must print nothing for the scenarios both can run
set -euo pipefail
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
OUT="$2"
SRC="$(cd "$(dirname "$0")/.." && pwd)"
rm -rf "$OUT" && mkdir -p "$OUT"
cd "$SRC"
n=0
# Sweep files (an "axes" key) name these models in their axes; they are not scenarios.
for s in $(grep -rlE '"type": *"(kueue|kai|hybrid)"' examples tests/cli/data --include=*.json | grep -v -e '^examples/lint/' |
           xargs grep -L '"axes"' | sort); do
  name=$(echo "${s%.json}" | tr / _)
  (cd "$(dirname "$s")" && "$BIN" run "$SRC/$s" --out "$OUT/$name" -q) 2>"$OUT/$name.err" || echo "exit $?" >>"$OUT/$name.err"
  rm -f "$OUT/$name/timeline.csv"
  n=$((n + 1))
done
echo "k8s_outputs.sh: $n scenarios in $OUT"
