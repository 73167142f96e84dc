#!/usr/bin/env bash
# End-to-end: `floorsim calibrate` writes a calibration JSON atomically, with paths/s > 0;
# bad flags exit 2 with a one-line message naming the verb.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has

"$FS" calibrate --help | has -- "--paths N .*(default: 200000)" || { echo "calibrate --help lacks defaults"; exit 1; }
"$FS" calibrate --out "$T/cal.json" --paths 20000 --assets 4 --options 8 --threads 1 > "$T/stdout"
test -s "$T/cal.json" || { echo "no calibration.json written"; exit 1; }
ls "$T" | has tmp && { echo "temporary file left behind"; exit 1; }
python3 - "$T/cal.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for k in ("device", "paths_per_s", "revaluations_per_s", "var_99", "paths", "assets", "options", "seed", "threads"):
    assert k in c, f"missing {k}"
assert c["paths_per_s"] > 0
assert abs(c["revaluations_per_s"] / (c["paths_per_s"] * 8) - 1) < 1e-9
assert c["paths"] == 20000 and c["assets"] == 4 and c["options"] == 8
assert c["var_99"] > 0
PY

set +e
"$FS" calibrate --paths 10 > /dev/null 2> "$T/err"; rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "missing --out: expected exit 2, got $rc"; exit 1; }
grep -q "calibrate" "$T/err" || { echo "error does not name the verb"; exit 1; }
set +e
"$FS" calibrate --out "$T/x.json" --assets 99 > /dev/null 2> "$T/err"; rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "--assets 99: expected exit 2, got $rc"; exit 1; }
[ "$(wc -l < "$T/err")" -eq 1 ] || { echo "error is not one line"; exit 1; }
test ! -e "$T/x.json" || { echo "output written despite bad input"; exit 1; }
echo "calibrate.sh: ok"
