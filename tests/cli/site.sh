#!/bin/bash
# End to end: a scenario without a "cluster" block takes its nodes from slurm.conf (a real
# site's, from tests/schedulers/data/site-confs), and the site's node names reach jobs.csv; a
# "cluster" block that disagrees with slurm.conf is an error naming /cluster, exit 2.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?FLOORSIM_SOURCE_DIR not set}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cp -r "$SRC/tests/schedulers/data/site-confs/deepops-dgx" "$TMP/site"
cat > "$TMP/site/scenario.json" <<'JSON'
{
  "name": "deepops-dgx",
  "workload": {"jobs": [
    {"id": 1, "submit_s": 0, "runtime_s": 600, "time_limit_s": 1200, "gpus": 16, "nodes": 2, "user": "a"},
    {"id": 2, "submit_s": 10, "runtime_s": 600, "time_limit_s": 1200, "gpus": 16, "nodes": 2, "user": "b"},
    {"id": 3, "submit_s": 20, "runtime_s": 600, "time_limit_s": 1200, "gpus": 32, "nodes": 4, "user": "c"}
  ]},
  "scheduler": {"type": "slurm", "slurm_conf": "slurm.conf", "gres_conf": "gres.conf"}
}
JSON
"$FS" run "$TMP/site/scenario.json" --out "$TMP/run" 2> "$TMP/err" || fail "run exited $?: $(cat "$TMP/err")"
grep -q 'dgx\[01-02\]' "$TMP/run/jobs.csv" || fail "jobs.csv does not name the site's nodes: $(cat "$TMP/run/jobs.csv")"
grep -q 'dgx\[01-04\]' "$TMP/run/jobs.csv" || fail "the 4-node job did not run on dgx[01-04]"
# Quiet keys (ports, paths, plugins) give no warning.
if grep -q 'SlurmctldPort\|PluginDir\|ProctrackType' "$TMP/err"; then fail "a quiet key was warned about: $(cat "$TMP/err")"; fi

# A cluster block that disagrees with slurm.conf: one line naming /cluster, exit 2.
sed -i 's/"name": "deepops-dgx",/"name": "deepops-dgx", "cluster": {"nodes": 4, "gpus_per_node": 8},/' "$TMP/site/scenario.json"
set +e
"$FS" run "$TMP/site/scenario.json" --out "$TMP/bad-run" 2> "$TMP/bad-err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "disagreeing cluster block: exit $rc, expected 2"
grep -q 'scenario.json:/cluster: the cluster block has 4 nodes (gpu\[001-004\]), the scheduler.s files 4 (dgx\[01-04\])' "$TMP/bad-err" \
  || fail "disagreeing cluster block: message was: $(cat "$TMP/bad-err")"
test ! -e "$TMP/bad-run" || fail "output written for a refused scenario"
echo ok
