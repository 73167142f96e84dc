#!/usr/bin/env bash
# Determinism and invariants over every shipped example: each scenario runs once with one
# OpenMP thread and once with two under --check-invariants (engine invariants after every
# event, sim/core/invariants.hpp), and the two runs must give byte-identical files (so neither
# the thread count nor the checker changes outputs); each fabric example likewise.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
same_dirs() {  # same_dirs A B WHAT: every file byte-identical, same file set
  local a="$1" b="$2" what="$3"
  [ "$(cd "$a" && find . -type f | sort)" = "$(cd "$b" && find . -type f | sort)" ] \
    || { echo "FAIL: $what: runs wrote different file sets" >&2; exit 1; }
  while IFS= read -r f; do
    cmp -s "$a/$f" "$b/$f" || { echo "FAIL: $what: $f differs between 1 and 2 threads / runs" >&2; exit 1; }
  done < <(cd "$a" && find . -type f)
}
for f in "$SRC"/examples/*.json "$SRC"/examples/slurm-quant/scenario.json "$SRC"/examples/kai-quant/scenario.json "$SRC"/examples/kueue-cpu-only/scenario.json "$SRC"/examples/sharing/*.json "$SRC"/examples/cost/night.json; do
  # FLOORSIM_QUICK_EXAMPLES=1 (the sanitizer pass of .ci/run): the trace replays and the night
  # under slurm take most of that pass's time and already ran in the Release pass.
  if [ "${FLOORSIM_QUICK_EXAMPLES:-0}" = 1 ]; then
    case "$f" in *kth-*|*rehearse-slurm*) continue ;; esac
  fi
  rm -rf "$T/a" "$T/b"
  OMP_NUM_THREADS=1 "$FS" run "$f" --out "$T/a" -q 2>/dev/null
  OMP_NUM_THREADS=2 "$FS" run "$f" --out "$T/b" -q --check-invariants 2>/dev/null \
    || { echo "FAIL: $f: --check-invariants run failed" >&2; "$FS" run "$f" --out "$T/c" -q --check-invariants; exit 1; }
  same_dirs "$T/a" "$T/b" "$f"
  n=$((n + 1))
done
for f in "$SRC"/examples/fabric/*.json; do
  rm -rf "$T/a" "$T/b"
  mkdir "$T/a" "$T/b"
  # The same command line in two folders: the pack records its command line (provenance).
  (cd "$T/a" && OMP_NUM_THREADS=1 "$FS" fabric "$f" --out pack > /dev/null 2> "$T/err") ||
    { echo "FAIL: $f: fabric exited $?: $(cat "$T/err")" >&2; exit 1; }
  (cd "$T/b" && OMP_NUM_THREADS=2 "$FS" fabric "$f" --out pack > /dev/null 2>&1)
  same_dirs "$T/a/pack" "$T/b/pack" "$f"
  n=$((n + 1))
done
[ "$n" -ge 12 ] || { echo "FAIL: only $n examples ran" >&2; exit 1; }
echo "examples.sh: $n examples gave byte-identical outputs with 1 and 2 threads, invariants held"
