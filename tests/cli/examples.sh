#!/usr/bin/env bash
# Every shipped scenario runs, and twice gives byte-identical files. Small ones also run with
# --check-invariants (engine invariants after every timestamp), which must not change outputs.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
for f in "$SRC"/examples/*.json "$SRC"/examples/slurm-quant/scenario.json "$SRC"/examples/kai-quant/scenario.json; do
  case "$f" in
    *kth-*|*pai-openb*) [ -f "$SRC/../shared/traces/swf/KTH-SP2-1996-2.1-cln.swf" ] || continue; extra="" ;;
    *) extra="--check-invariants" ;;
  esac
  "$FS" run "$f" --out "$T/a" -q 2>/dev/null
  "$FS" run "$f" --out "$T/b" -q $extra 2>/dev/null
  for out in metrics.json jobs.csv timeline.csv scenario.resolved.json; do
    [ -f "$T/a/$out" ] || continue
    cmp -s "$T/a/$out" "$T/b/$out" || { echo "FAIL: $f: $out differs between runs" >&2; exit 1; }
  done
  n=$((n + 1))
done
[ "$n" -ge 10 ] || { echo "FAIL: only $n examples ran" >&2; exit 1; }
echo "examples.sh: $n examples ran twice with byte-identical outputs"
