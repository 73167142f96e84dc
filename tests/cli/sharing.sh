#!/usr/bin/env bash
# GPU sharing (scenario "sharing" block, docs/sharing.md): an exclusive pool leaves the run as it
# was without the block (jobs.csv, timeline.csv and every other metric byte-identical); a mode
# that slows the batch (MPS) changes the batch's end times; the example and its sweep run, the
# sweep byte-identical with 1 and 2 threads; the rehearsal verdict and the report carry the
# two-part worst case; bad sharing input is one error line, exit 2, no output.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has

# The quickstart with a sharing block: one service on gpu[001-002], pool mode as given.
with_sharing() {  # with_sharing MODE OUT.json [EXTRA-POOL-FIELDS]
  python3 - "$SRC/examples/quickstart.json" "$1" "$2" "${3:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pool = {"name": "shared", "nodes": "gpu[001-002]", "mode": sys.argv[2]}
if sys.argv[4]: pool.update(json.loads(sys.argv[4]))
d["sharing"] = {"pools": [pool], "services": [{"name": "intraday", "pool": "shared", "start_s": 0, "end_s": 36000,
  "rate_per_s": 2, "work_gpu_s": 0.1, "latency_target_s": 0.5}]}
json.dump(d, open(sys.argv[3], "w"), indent=1)
PY
}
with_sharing exclusive "$T/excl.json"
"$FS" run "$SRC/examples/quickstart.json" --out "$T/plain" -q
"$FS" run "$T/excl.json" --out "$T/excl" -q
for f in jobs.csv timeline.csv; do cmp -s "$T/plain/$f" "$T/excl/$f" || fail "exclusive sharing changed $f"; done
python3 - "$T/plain/metrics.json" "$T/excl/metrics.json" <<'PY' || fail "exclusive sharing changed metrics.json beyond its sharing section"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert "sharing" in b and "sharing" not in a
b.pop("sharing")
sys.exit(0 if a == b else 1)
PY
grep -q '"sharing"' "$T/plain/scenario.resolved.json" && fail "a plain scenario's resolved file names sharing"

# MPS slows the batch on the pool: some end time moves; the metrics say by how much.
with_sharing mps "$T/mps.json" '{"mps_batch_slowdown": 2.0}'
"$FS" run "$T/mps.json" --out "$T/mps" -q
cmp -s "$T/plain/jobs.csv" "$T/mps/jobs.csv" && fail "mps with batch slowdown 2 left every job as it was"
grep -q '"batch_stretch_mean": 1.0,' "$T/mps/metrics.json" && fail "mps reported no batch stretch"

# The example, its rehearsal verdict and report, and its sweep (1 vs 2 threads).
EX="$SRC/examples/sharing/intraday-var.json"
"$FS" rehearse "$EX" --out "$T/rh" > "$T/rh.txt" || true
grep -q 'intraday p99 at batch peak' "$T/rh.txt" || fail "rehearsal verdict lacks the requests' p99 at batch peak: $(cat "$T/rh.txt")"
grep -q 'var margin with requests at full rate' "$T/rh.txt" || fail "rehearsal verdict lacks the batch margin with requests"
"$FS" report "$T/rh" -o "$T/rh.html" > /dev/null 2>&1
grep -q 'GPU sharing: requests beside the batch' "$T/rh.html" || fail "report has no sharing section"
if [ "${FLOORSIM_QUICK_EXAMPLES:-0}" != 1 ]; then
  "$FS" sweep "$SRC/examples/sweeps/sharing-modes.json" --out "$T/s1" --threads 1 -q
  "$FS" sweep "$SRC/examples/sweeps/sharing-modes.json" --out "$T/s2" --threads 2 -q
  for f in results.jsonl results.csv sweep.json; do cmp -s "$T/s1/$f" "$T/s2/$f" || fail "sweep $f differs between 1 and 2 threads"; done
  [ "$(wc -l < "$T/s1/results.jsonl")" -eq 9 ] || fail "sweep: expected 9 points"
  grep -q '"error"' "$T/s1/results.jsonl" && fail "sweep point failed: $(grep '"error"' "$T/s1/results.jsonl" | head -1)"
fi

# Bad input: one line naming the pointer, exit 2, nothing written.
bad() {  # bad NAME EXPECTED-TEXT PYTHON-EDIT
  python3 - "$T/excl.json" "$T/$1.json" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); s = d["sharing"]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
  set +e; "$FS" run "$T/$1.json" --out "$T/out-$1" -q 2> "$T/err"; rc=$?; set -e
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, expected 2"
  [ "$(wc -l < "$T/err")" -eq 1 ] || fail "$1: expected one line: $(cat "$T/err")"
  grep -q -- "$2" "$T/err" || fail "$1: $(cat "$T/err")"
  [ ! -e "$T/out-$1" ] || fail "$1: wrote output"
}
bad unknown_pool '/sharing/services/0/pool: no pool is named "other"' 's["services"][0]["pool"] = "other"'
bad bad_profile '/sharing/pools/0/mig_profile: "5g.50gb" is not a MIG profile' 's["pools"][0]["mig_profile"] = "5g.50gb"'
bad mig_full '/sharing/pools/0/mig_instances_per_gpu: 3 instances of 3g.40gb' 's["pools"][0].update({"mode": "mig", "mig_instances_per_gpu": 3})'
bad site_res '/sharing/pools/0/site_resource: "gres/foo"' 's["pools"][0]["site_resource"] = "gres/foo"'
bad node '/sharing/pools/0/nodes: node "gpu005"' 's["pools"][0]["nodes"] = "gpu[004-005]"'
bad work '/sharing/services/0/work_gpu_s: the request' 's["services"][0]["paths_per_request"] = 5'
# A site resource that means another mode: a warning, and the pool's mode stands.
with_sharing mps "$T/warn.json" '{"site_resource": "gres/shard"}'
"$FS" run "$T/warn.json" --out "$T/warn" -q 2> "$T/warn.err"
grep -q 'site_resource gres/shard is time_slicing mode, but the pool.s mode is mps' "$T/warn.err" || fail "no site_resource warning: $(cat "$T/warn.err")"
echo "sharing.sh: ok"
