#!/bin/bash
# End to end: the slurm-topology examples (README "Topology"). topology/tree takes its switches
# from the scenario's fat-tree fabric and keeps --switches=1 VaR shards on one edge switch that
# topology/flat spreads; topology/block runs training gangs in 2-node segments. Runs are
# deterministic (byte-identical twice), and a 22.05 block run or a bad --segment is exit 2.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?FLOORSIM_SOURCE_DIR not set}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
EX="$SRC/examples/slurm-topology"
col() {  # col FILE NAME: the values of a jobs.csv column, with the class, one "class value" a line
  python3 - "$1" "$2" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["class"], r[sys.argv[2]])
PY
}
for x in flat tree block; do
  "$FS" run "$EX/$x.json" --out "$TMP/$x" -q 2> "$TMP/err" || fail "$x: exit $?: $(cat "$TMP/err")"
  "$FS" run "$EX/$x.json" --out "$TMP/$x-2" -q --check-invariants 2> "$TMP/err" || fail "$x: --check-invariants: $(cat "$TMP/err")"
  for f in jobs.csv metrics.json timeline.csv; do cmp -s "$TMP/$x/$f" "$TMP/$x-2/$f" || fail "$x: $f differs between runs"; done
done
# flat: no topology columns, no topology report.
head -1 "$TMP/flat/jobs.csv" | grep -q ",eff_qos,started_by$" || fail "flat: jobs.csv has topology columns: $(head -1 "$TMP/flat/jobs.csv")"
python3 - "$TMP" <<'PY' || fail "report figures"
import json, sys
t = sys.argv[1]
flat = json.load(open(t + "/flat/metrics.json"))["scheduler_report"]
assert "topology" not in flat, "flat run reports a topology"
tree = json.load(open(t + "/tree/metrics.json"))["scheduler_report"]["topology"]
assert tree["plugin"] == "topology/tree" and tree["source"] == "fabric", tree
assert tree["leaf_switches"] == 8 and tree["switches"] == 13 and tree["levels"] == 3, tree  # k=4: 8 edge, 4 pods, core
so = tree["switches_option"]
assert so["jobs_started"] == 10 and so["jobs_waited"] >= 1 and so["jobs_timed_out"] == 0, so
f = tree["fragmentation"]
assert 0 <= f["index_time_avg"] <= f["index_max"] <= 1 and f["samples"] > 0, f
block = json.load(open(t + "/block/metrics.json"))["scheduler_report"]["topology"]
assert block["plugin"] == "topology/block" and block["base_blocks"] == 8 and block["block_levels"] == [1, 2, 4, 8], block
PY
# tree: every VaR shard (--switches=1) on one leaf; flat spreads some of them over two.
col "$TMP/tree/jobs.csv" leaves | awk '$1=="risk" && $2!=1 {bad=1} END {exit bad}' || fail "tree: a risk job spans leaves"
col "$TMP/tree/jobs.csv" node_list | grep "^risk gpu\[001,016\]" > /dev/null && fail "tree: risk job on gpu001+gpu016"
col "$TMP/flat/jobs.csv" node_list | grep "^risk gpu\[001,016\]" > /dev/null || fail "flat: expected the spread placement gpu[001,016]"
# block: training gangs (6 nodes, --segment=2) take three base blocks.
col "$TMP/block/jobs.csv" blocks | awk '$1=="training" && $2!=3 {bad=1} END {exit bad}' || fail "block: a training job not in 3 blocks"

# Bad input: topology/block under 22.05, and a segment that does not divide the node count.
python3 - "$EX/block.json" "$TMP" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["fabric"]["file"] = sys.argv[1].rsplit("/", 2)[0] + "/fabric/k4_quickstart.json"
d["scheduler"]["version"] = "22.05"
json.dump(d, open(sys.argv[2] + "/b2205.json", "w"))
d["scheduler"]["version"] = "master"
d["scheduler"]["job_options"]["training"]["segment"] = 4
json.dump(d, open(sys.argv[2] + "/seg4.json", "w"))
PY
for c in b2205:topology_plugin seg4:job_options/training/segment; do
  set +e
  "$FS" run "$TMP/${c%%:*}.json" --out "$TMP/out-${c%%:*}" 2> "$TMP/err"
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "${c%%:*}: exit $rc, expected 2"
  grep -q "/scheduler/${c#*:}" "$TMP/err" || fail "${c%%:*}: message was: $(cat "$TMP/err")"
  [ ! -e "$TMP/out-${c%%:*}" ] || fail "${c%%:*}: output left behind"
done
echo "topology: ok"
