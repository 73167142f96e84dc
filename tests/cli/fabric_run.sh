#!/usr/bin/env bash
# End to end: traffic from a run's job placements. `floorsim run` writes jobs.csv; `floorsim
# fabric` builds each started job's collective over the nodes it got, from its start time, all
# in one solve. The example's committed jobs.csv is the run's own (so the example stays honest).
set -euo pipefail
FLOORSIM="$1"
SRC="${FLOORSIM_SOURCE_DIR:?}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

"$FLOORSIM" run "$SRC/examples/quickstart-fabric.json" --out "$TMP/run" > /dev/null 2>&1
cmp "$TMP/run/jobs.csv" "$SRC/examples/fabric/quickstart_jobs.csv"

# The example scenario pointed at the fresh run.
sed "s|\"quickstart_jobs.csv\"|\"$TMP/run/jobs.csv\"|" "$SRC/examples/fabric/run_placements.json" > "$TMP/s.json"
"$FLOORSIM" fabric "$TMP/s.json" --out "$TMP/p" 2> /dev/null
P="$TMP/p/signoff.json"
grep -q '"pattern": "run_jobs"' "$P"
grep -q '"jobs_in_file": 22' "$P"
grep -q '"jobs_solved": 10' "$P"
grep -q '"class_not_listed": 12' "$P"
# Job 1014 (training, 6 hosts gpu[001,006-009,016], from 0 s): a 6-member ring of 4 GB, each
# flow 2*5/6*4 GB = 6.67 GB; over the 2:1 edge taper (HDR 200 Gb/s hosts, 100 Gb/s per edge
# uplink) the cross-edge ring flows get 12.5 GB/s: 6.67e9 / 12.5e9 = 0.5333 s, plus 5 hops of 1 us.
grep -q "| 1014 | training | 0 | 6 | ring_allreduce | 4e+09 | 0.5333 |" "$TMP/p/signoff.md"
# Every flow row carries its job's start time: job 1015 starts at 600 s.
grep -q '^quickstart run.s jobs,[0-9]*,[0-9]*,[0-9]*,6.66666667e+09,600,' "$TMP/p/flows.csv"
# links_over_time.csv: each link's load between solver events. Its segments integrate to the
# bytes links.csv gives the link, and job 1015's ring (from 600 s) opens segments at 600 s with
# the bottleneck flag on the edge uplinks it saturates.
head -1 "$TMP/p/links_over_time.csv" | grep -qx "profile,link,from,to,tier,from_s,to_s,gbps,utilisation,bottleneck"
awk -F, 'NR == FNR { if (FNR > 1) b[$2] += $8 * 1e9 / 8 * ($7 - $6); next }
         FNR > 1 { n++; d = b[$2] - $7; if (d < 0) d = -d; if (d > 1e-6 * $7) { print "link " $2 ": " b[$2] " vs " $7; bad = 1 } }
         END { exit bad || n == 0 }' "$TMP/p/links_over_time.csv" "$TMP/p/links.csv"
grep -q '^quickstart run.s jobs,[0-9]*,L1:[0-9]*,L2:[0-9]*,1,600,600.53333[0-9]*,100,1,1$' "$TMP/p/links_over_time.csv"

# The run's jobs.csv is an input named by its hash.
grep -q "$(sha256sum "$TMP/run/jobs.csv" | cut -d' ' -f1)" "$P"

# A node the fabric does not name: exit 2, one line naming the file and line, no pack (line 2:
# job 1000, a pricing job whose class the profile leaves out, still has its nodes checked).
sed 's/gpu\[001-016\]/gpu[101-116]/' "$TMP/s.json" > "$TMP/bad.json"
set +e
err="$("$FLOORSIM" fabric "$TMP/bad.json" --out "$TMP/bad" 2>&1)"
rc=$?
set -e
test "$rc" -eq 2
test "$(echo "$err" | wc -l)" -eq 1
echo "$err" | grep -q "jobs.csv:2: node \"gpu001\" is not a fabric host"
test ! -e "$TMP/bad"
# node_names must name every host once.
sed 's/gpu\[001-016\]/gpu[001-015]/' "$TMP/s.json" > "$TMP/bad2.json"
set +e
err="$("$FLOORSIM" fabric "$TMP/bad2.json" --out "$TMP/bad2" 2>&1)"
rc=$?
set -e
test "$rc" -eq 2
echo "$err" | grep -q "bad2.json:/traffic/0/node_names: 15 names; expected 16 (one per fabric host)"
echo "fabric_run.sh: ok"
