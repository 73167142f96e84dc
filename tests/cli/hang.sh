#!/bin/bash
# No hang, ever: scenarios that drove the slurm model into endless loops (a WEEKLY reservation
# with MAGNETIC whose attracted job's limit is longer than its window; a job whose time limit is
# longer than a non-FLEX DAILY reservation's window; three one-off reservations after which the
# model asks for a pass at the current time, found by the slurm_sim fuzzer) finish, or are
# stopped by the engine's watchdog with exit code 2 and one line naming the model, well inside
# a minute; a run that loops is never left running.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?FLOORSIM_SOURCE_DIR not set}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for name in hang_recurring_magnetic hang_limit_over_recurring_window hang_slurm_wake_at_now; do
  set +e
  timeout 60 "$FS" run "$SRC/tests/cli/data/$name.json" --out "$TMP/$name" -q 2> "$TMP/$name.err"
  rc=$?
  set -e
  case "$rc" in
    0) test -f "$TMP/$name/metrics.json" || fail "$name: exit 0 but no metrics.json" ;;
    2) [ "$(wc -l < "$TMP/$name.err")" -eq 1 ] || fail "$name: stderr is not one line: $(cat "$TMP/$name.err")"
       grep -Eq "^floorsim: .*$name\.json:/scheduler: slurm: [0-9]+ scheduler passes" "$TMP/$name.err" ||
         fail "$name: not the watchdog's message: $(cat "$TMP/$name.err")"
       test ! -e "$TMP/$name" || fail "$name: stopped, but left output behind" ;;
    124) fail "$name: still running after 60 s (a hang)" ;;
    *) fail "$name: exit $rc: $(cat "$TMP/$name.err")" ;;
  esac
done
