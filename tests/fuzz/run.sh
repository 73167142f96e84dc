#!/usr/bin/env bash
# Runs every reader fuzz target (tests/fuzz/targets.cpp) for a bounded time under libFuzzer
# with ASan+UBSan and _GLIBCXX_ASSERTIONS, N at a time.
#   bash tests/fuzz/run.sh [SECONDS_PER_TARGET=30] [PARALLEL=nproc]
# Env: FUZZ_BUILD (build dir, default build-fuzz; reused if configured), FUZZ_NO_BUILD=1 (use
# it as is), FUZZ_TARGETS ("swf sacct": only these), FUZZ_OUT (artifacts, default
# $FUZZ_BUILD/fuzz-artifacts). Seed corpora are assembled in a temp dir at run time from
# tests/fuzz/seeds/<t>/, tests/fuzz/regress/<t>/ and the target's globs (examples/, and the
# bundled traces in traces/data/, decompressed and cut to their first 64 KiB); nothing is
# copied into the repo.
# Exit 1 when any target crashed, hung, leaked or broke a sanitizer: its input is in FUZZ_OUT;
# fix the reader, then keep the input as tests/fuzz/regress/<target>/<name> (ctest replays it).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS="${1:-30}"
PAR="${2:-$(nproc)}"
B="${FUZZ_BUILD:-build-fuzz}"
OUT="${FUZZ_OUT:-$B/fuzz-artifacts}"
CXX_FUZZ="${CXX_FUZZ:-clang++-14}"

if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
  if [ ! -f "$B/CMakeCache.txt" ]; then
    cmake -S . -B "$B" -DCMAKE_CXX_COMPILER="$CXX_FUZZ" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
      -DFLOORSIM_SANITIZE=ON -DFLOORSIM_GLIBCXX_ASSERTIONS=ON -DFLOORSIM_FUZZ=ON -DFLOORSIM_BENCH=OFF \
      -DFLOORSIM_CUDA=OFF >/dev/null
  fi
  cmake --build "$B" -j"$PAR" --target fuzz_readers fuzz_replay
fi
FUZZER="$B/tests/fuzz/fuzz_readers"
[ -x "$FUZZER" ] || { echo "run.sh: $FUZZER missing (configure with -DFLOORSIM_FUZZ=ON and clang)" >&2; exit 2; }

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$OUT"
rm -f "$OUT"/*  # only this run's findings count
names=()
while IFS=$'\t' read -r name globs; do
  if [ -n "${FUZZ_TARGETS:-}" ] && [[ " $FUZZ_TARGETS " != *" $name "* ]]; then continue; fi
  seeds="$T/seeds-$name"
  mkdir -p "$seeds" "$T/corpus-$name"
  for d in "tests/fuzz/seeds/$name" "tests/fuzz/regress/$name"; do
    [ -d "$d" ] && find "$d" -maxdepth 1 -type f -exec cp {} "$seeds/" \;
  done
  i=0
  for g in $globs; do
    for f in $g; do
      [ -f "$f" ] || continue
      i=$((i + 1))
      # Large traces: the first 64 KiB, cut at a line end (libFuzzer's -max_len bounds inputs).
      # The fuzzers feed bytes to the readers as text, so .gz seeds are decompressed first.
      dst="$seeds/glob$i-$(basename "${f%.gz}")"
      { gzip -dcf "$f" || true; } | head -c 65537 > "$dst"
      if [ "$(stat -c %s "$dst")" -gt 65536 ]; then
        head -c 65536 "$dst" | sed '$d' > "$dst.cut" && mv "$dst.cut" "$dst"
      fi
    done
  done
  names+=("$name")
done < <("$B/tests/fuzz/fuzz_replay" --list)

run_target() {
  local name="$1"
  if FLOORSIM_FUZZ_TARGET="$name" \
     ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     "$FUZZER" -max_total_time="$SECS" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$OUT/$name-" "$T/corpus-$name" "$T/seeds-$name" \
       >"$T/log-$name" 2>&1; then
    echo "fuzz $name: ok ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$T/log-$name" | grep -o '[0-9]*$') runs in ${SECS} s)"
  else
    echo "fuzz $name: FAILED; log tail:"
    tail -40 "$T/log-$name" | sed "s/^/  $name| /"
    return 1
  fi
}
export -f run_target
export SECS OUT FUZZER T

fail=0
printf '%s\n' "${names[@]}" | xargs -P "$PAR" -I{} bash -c 'run_target {}' || fail=1
found=$(find "$OUT" -maxdepth 1 -type f \( -name '*-crash-*' -o -name '*-timeout-*' -o -name '*-oom-*' -o -name '*-leak-*' \))
if [ "$fail" = 1 ] || [ -n "$found" ]; then
  echo "run.sh: reader bugs found; inputs in $OUT:" >&2
  ls "$OUT" >&2
  exit 1
fi
echo "run.sh: ${#names[@]} targets x ${SECS} s, no crash, hang, leak or sanitizer report"
