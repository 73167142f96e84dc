#!/usr/bin/env bash
# Every input the fuzzers ever broke a reader with (tests/fuzz/regress/<target>/) and the
# in-repo seeds still end in success or InputError, under whatever build runs ctest.
set -euo pipefail
R="$1"
SRC="${FLOORSIM_SOURCE_DIR:?}"
cd "$SRC"
total=0
while IFS=$'\t' read -r name globs; do
  inputs=()
  for d in "tests/fuzz/regress/$name" "tests/fuzz/seeds/$name"; do [ -d "$d" ] && inputs+=("$d"); done
  for g in $globs; do
    case "$g" in ../*) continue ;; esac  # shared traces: the fuzz runs use them, not ctest
    for f in $g; do [ -f "$f" ] && inputs+=("$f"); done
  done
  [ "${#inputs[@]}" -gt 0 ] || { echo "FAIL: fuzz target $name has no seeds" >&2; exit 1; }
  "$R" "$name" "${inputs[@]}"
  total=$((total + 1))
done < <("$R" --list)
[ "$total" -ge 12 ] || { echo "FAIL: only $total fuzz targets" >&2; exit 1; }
echo "regress.sh: $total targets replayed"
