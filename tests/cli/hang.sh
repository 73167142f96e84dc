#!/bin/bash
# No hang, ever: scenarios that drove the slurm model into endless loops (a WEEKLY reservation
# with MAGNETIC whose attracted job's limit is longer than its window; a job whose time limit is
# longer than a non-FLEX DAILY reservation's window; three one-off reservations after which the
# model asked for a pass at the current time, found by the slurm_sim fuzzer). The engine's
# watchdog would stop them with exit 2 (tests/sim/watchdog_test.cpp); here the model itself must
# end them with exit 0 and the outcome below.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?FLOORSIM_SOURCE_DIR not set}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Each finishes (exit 0) with the outcome slurmctld's rules give, in well under a minute:
#   name                              job start_s (empty: never started, PENDING at the end)
expect() {
  case "$1" in
    hang_recurring_magnetic) echo "1:0 2:0" ;;               # the attracted job runs outside the window
    hang_limit_over_recurring_window) echo "1:" ;;            # no occurrence can hold it: pending
    hang_slurm_wake_at_now) echo "1:1200" ;;                  # after r2's window, on the free node
  esac
}
for name in hang_recurring_magnetic hang_limit_over_recurring_window hang_slurm_wake_at_now; do
  set +e
  timeout 60 "$FS" run "$SRC/tests/cli/data/$name.json" --out "$TMP/$name" -q 2> "$TMP/$name.err"
  rc=$?
  set -e
  case "$rc" in
    0) test -f "$TMP/$name/metrics.json" || fail "$name: exit 0 but no metrics.json" ;;
    2) fail "$name: stopped by the watchdog (the model loops): $(cat "$TMP/$name.err")" ;;
    124) fail "$name: still running after 60 s (a hang)" ;;
    *) fail "$name: exit $rc: $(cat "$TMP/$name.err")" ;;
  esac
  got=$(awk -F, 'NR > 1 { printf "%s%s:%s", (NR > 2 ? " " : ""), $1, $10 }' "$TMP/$name/jobs.csv")
  [ "$got" = "$(expect "$name")" ] || fail "$name: starts '$got', expected '$(expect "$name")'"
done
echo "hang.sh: 3 former Slurm loops finish with slurmctld's outcome"
