#!/usr/bin/env bash
# The slurm model against recordings of a real slurmctld 22.05 (tests/oracle/recorded/, made by
# tests/oracle/slurm22.sh on tests/oracle/workloads/): same start order, same nodes, starts and
# planned starts within 2 s (issue 3). A doctored recording must be caught.
set -euo pipefail
bin=$1
src=${FLOORSIM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for rec in "$src"/tests/oracle/recorded/*.tsv; do
  name=$(basename "$rec" .tsv)
  echo "== $name"
  python3 "$src/tests/oracle/compare.py" "$bin" "$src/tests/oracle/workloads/$name.tsv" "$rec" --out "$tmp/$name"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "oracle.sh: no recordings"; exit 1; }
# Negative control: move one real start by 10 s; the comparison must fail with exit 1.
first=$(ls "$src"/tests/oracle/recorded/*.tsv | head -1)
name=$(basename "$first" .tsv)
awk -F'\t' -v OFS='\t' '!/^#/ && $1 != "id" && !done {$3 += 10; done = 1} {print}' "$first" > "$tmp/doctored.tsv"
cp "$first.slurm.conf" "$tmp/doctored.tsv.slurm.conf"
set +e
python3 "$src/tests/oracle/compare.py" "$bin" "$src/tests/oracle/workloads/$name.tsv" "$tmp/doctored.tsv" --out "$tmp/doc" > "$tmp/doc.txt"
rc=$?
set -e
[ "$rc" = 1 ] || { echo "oracle.sh: a doctored recording gave exit $rc; expected 1"; cat "$tmp/doc.txt"; exit 1; }
grep -q "DIFFERS: start" "$tmp/doc.txt"
echo "oracle.sh: $n recordings match; the doctored one is caught"
