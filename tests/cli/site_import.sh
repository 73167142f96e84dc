#!/usr/bin/env bash
# End-to-end: `floorsim site import` writes a scenario from a site's slurm.conf, sacctmgr dump
# and a sacct window (the bundled examples/site/) that `validate` and `run` take as written, its
# paths relative to its own folder; refusals (missing files, a bad or empty window, an existing
# output, a cluster a scenario cannot name) exit 2 with one line and write nothing. `validate`
# opens every file a scenario names and reads it with its reader.
set -euo pipefail
FS="$(realpath "$1")"
SRC="${FLOORSIM_SOURCE_DIR:?}"
T=$(mktemp -d "$(dirname "$FS")/site.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cp -r "$SRC/examples/site" "$T/site"
mkdir "$T/work" "$T/work/scen"
cd "$T/work"
SITE=(--slurm-conf ../site/slurm.conf --dump ../site/sacctmgr.dump --sacct ../site/sacct.log)
WIN=(--from 2026-03-02T08:00:00 --to 2026-03-02T20:00:00)

# refused WHAT ARGS...: exit 2, one line containing WHAT, and no scen/out.json written.
refused() {
  local what="$1"; shift
  set +e
  "$FS" "$@" > /dev/null 2> "$T/err"; local rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "$* exited $rc, expected 2 ($(cat "$T/err"))"
  [ "$(grep -vc '^floorsim: warning:' "$T/err")" -eq 1 ] || fail "$*: expected one error line, got: $(cat "$T/err")"
  grep -q -- "$what" "$T/err" || fail "$*: expected '$what' in: $(cat "$T/err")"
}

# 1. Import one working day; the scenario names the files relative to its own folder.
"$FS" site import "${SITE[@]}" "${WIN[@]}" -o scen/day.json > "$T/out" 2> "$T/err"
grep -q '^wrote scen/day.json: [0-9]* jobs on 6 nodes (24 GPUs)$' "$T/out" || fail "import said: $(cat "$T/out")"
grep -q 'running and .* queued at 2026-03-02T08:00:00 are submitted at t = 0' "$T/err" || fail "no warning on the jobs cut by --from: $(cat "$T/err")"
python3 - scen/day.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s, t = d["scheduler"], d["workload"]["trace"]
assert s["type"] == "slurm" and s["slurm_conf"] == "../../site/slurm.conf" and s["sacctmgr_dump"] == "../../site/sacctmgr.dump", s
assert t == {"path": "../../site/sacct.log", "format": "sacct", "from": "2026-03-02T08:00:00", "to": "2026-03-02T20:00:00"}, t
assert "cluster" not in d, d["cluster"]  # the nodes come from slurm.conf
assert d["name"] == "kestrel"
PY
"$FS" validate scen/day.json -q 2> /dev/null || fail "validate refused the imported scenario"
(cd / && "$FS" validate "$T/work/scen/day.json" -q 2> /dev/null) || fail "validate from another folder refused it"
"$FS" run scen/day.json --out out -q 2> /dev/null || fail "run refused the imported scenario"
python3 - out/metrics.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
w = m["workload"]
assert w["clock"] == {"t0": "2026-03-02T08:00:00", "from": "workload.trace"}, w.get("clock")
win = w["window"]
assert win["from"] == "2026-03-02T08:00:00" and win["to"] == "2026-03-02T20:00:00", win
assert win["running_at_from"] > 0 and win["pending_at_from"] >= 0 and win["in_window"] > 0, win
assert m["jobs"] == win["in_window"] + win["running_at_from"] + win["pending_at_from"], (m["jobs"], win)
PY
# Without a window: the whole accounting, t = 0 its first submit.
"$FS" site import "${SITE[@]}" -o all.json > /dev/null 2>&1
"$FS" validate all.json -q 2> /dev/null || fail "validate refused the whole-trace scenario"
grep -q '"to":' all.json && fail "a whole-trace import wrote a window"

# 2. Refusals: nothing written.
refused "missing --slurm-conf" site import -o scen/x.json
refused "unknown action" site export --slurm-conf ../site/slurm.conf -o scen/x.json
refused "../site/nope.conf" site import --slurm-conf ../site/nope.conf -o scen/x.json
refused "../site/nope.dump" site import --slurm-conf ../site/slurm.conf --dump ../site/nope.dump -o scen/x.json
refused "../site/nope.log" site import --slurm-conf ../site/slurm.conf --sacct ../site/nope.log -o scen/x.json
refused "expected a time" site import "${SITE[@]}" --from 2026-03-02 -o scen/x.json
refused "is not after --from" site import "${SITE[@]}" --from 2026-03-02T20:00:00 --to 2026-03-02T08:00:00 -o scen/x.json
refused "expected --sacct" site import --slurm-conf ../site/slurm.conf --from 2026-03-02T08:00:00 -o scen/x.json
refused "no job of" site import "${SITE[@]}" --from 2027-01-01T00:00:00 --to 2027-01-02T00:00:00 -o scen/x.json
[ ! -e scen/x.json ] || fail "a refused import wrote scen/x.json"
cp scen/day.json "$T/day.before"
refused "or --force to replace it" site import "${SITE[@]}" "${WIN[@]}" -o scen/day.json
cmp -s scen/day.json "$T/day.before" || fail "a refused import changed scen/day.json"
"$FS" site import "${SITE[@]}" "${WIN[@]}" -o scen/day.json --force > /dev/null 2>&1 || fail "--force did not replace scen/day.json"
refused "is, holds or lies in an input\|input" site import "${SITE[@]}" -o ../site/sacct.log --force
# A site's own node names (not PREFIX001...) reach the replay: the cluster comes from slurm.conf.
sed 's/^NodeName=gpu\[001-006\]/NodeName=n[1-6]/; s/Nodes=gpu\[001-006\]/Nodes=n[1-6]/' ../site/slurm.conf > odd.conf
"$FS" site import --slurm-conf odd.conf --dump ../site/sacctmgr.dump --sacct ../site/sacct.log "${WIN[@]}" -o scen/odd.json > /dev/null 2>&1 || fail "import refused nodes n[1-6]"
"$FS" run scen/odd.json --out out-odd -q 2> /dev/null || fail "run refused the n[1-6] scenario"
grep -q ',n[1-6]' out-odd/jobs.csv || grep -q 'n\[' out-odd/jobs.csv || fail "jobs.csv does not name nodes n1..n6"
grep -v '^NodeName\|^PartitionName' ../site/slurm.conf > nonodes.conf
refused "defines no node" site import --slurm-conf nonodes.conf -o scen/x.json

# 3. validate opens every file a scenario names, and reads it with its reader.
for key in slurm_conf sacctmgr_dump; do
  python3 -c "import json,sys; d=json.load(open('scen/day.json')); d['scheduler']['$key']='missing.file'; json.dump(d, open('scen/bad.json','w'))"
  refused "scen/missing.file: cannot open it" validate scen/bad.json
  refused "scen/bad.json:/scheduler/$key" validate scen/bad.json
done
printf 'NodeName=gpu[001-006] Gres=gpu:4\nPartitionName=gpu Nodes=gpu[001-006] MaxTime=forever\n' > scen/broken.conf
python3 -c "import json; d=json.load(open('scen/day.json')); d['scheduler']['slurm_conf']='broken.conf'; json.dump(d, open('scen/bad.json','w'))"
refused "scen/broken.conf:2" validate scen/bad.json
echo "site.sh: import, validate, run and refusals ok"
