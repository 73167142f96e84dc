#!/usr/bin/env bash
# End-to-end: delay scheduling around a queue model (examples/delay): every mode runs on the
# DL-shaped example, strict consolidation never starts a job spread over leaves, "none" does,
# the runs are the same with 1 and 2 threads; delay scheduling beside a fabric block is refused.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has

"$FS" sweep "$SRC/examples/delay/modes.json" --out "$T/a" -j1 -q || fail "modes sweep"
"$FS" sweep "$SRC/examples/delay/modes.json" --out "$T/b" -j2 -q || fail "modes sweep -j2"
cmp -s "$T/a/results.jsonl" "$T/b/results.jsonl" || fail "1 and 2 threads differ"
[ "$(wc -l < "$T/a/results.jsonl")" -eq 8 ] || fail "expected 8 points"
grep -q '"error"' "$T/a/results.jsonl" && fail "a point failed: $(grep '"error"' "$T/a/results.jsonl" | head -1)"
grep '"mode":"strict"' "$T/a/results.jsonl" | has '"network_starts":0' || fail "strict started a job over the network"
grep '"mode":"none"' "$T/a/results.jsonl" | has '"network_starts":0' && fail "none never spread a job (the example no longer tests anything)"
grep -q '"mean_jct_s"' "$T/a/results.jsonl" || fail "no mean JCT in the report"

# Either the fabric coupling or the consolidation slowdown stretches runtimes, not both.
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["fabric"] = {"file": sys.argv[2]}; print(json.dumps(d))' \
  "$SRC/examples/delay/scenario.json" "$SRC/examples/fabric/k4_quickstart.json" > "$T/both.json"
grep -q '"fabric"' "$T/both.json" || fail "test set-up: no fabric block written"
set +e
"$FS" run "$T/both.json" --out "$T/both" 2> "$T/both.err"; rc=$?
set -e
[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/both.err")" -eq 1 ] && grep -q "/delay_scheduling" "$T/both.err" || fail "fabric + delay_scheduling: rc $rc, $(cat "$T/both.err")"
echo "delay.sh: 8 delay-scheduling points, deterministic; strict never spreads; fabric + delay refused"
