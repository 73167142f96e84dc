#!/usr/bin/env bash
# End-to-end: the hybrid cluster example (examples/hybrid): the comparison sweep runs every
# setup (static split, lending with drain and preempt reclaim, one scheduler for everything)
# the same with 1 and 2 threads; the static split lends nothing, lending lends and reclaims;
# the example holds the engine invariants, with Kueue or KAI on the Kubernetes side; bad hybrid blocks get one line naming the pointer.
set -euo pipefail
# shellcheck source=tests/cli/preamble.bash
source "$(dirname "${BASH_SOURCE[0]}")/preamble.bash"  # FS, SRC, T (removed on exit), fail, has

"$FS" sweep "$SRC/examples/hybrid/compare.json" --out "$T/a" -j1 -q || fail "compare sweep"
"$FS" sweep "$SRC/examples/hybrid/compare.json" --out "$T/b" -j2 -q || fail "compare sweep -j2"
cmp -s "$T/a/results.jsonl" "$T/b/results.jsonl" || fail "1 and 2 threads differ"
[ "$(wc -l < "$T/a/results.jsonl")" -eq 5 ] || fail "expected 5 points"
grep -q '"error"' "$T/a/results.jsonl" && fail "a point failed: $(grep '"error"' "$T/a/results.jsonl" | head -1)"
python3 - "$T/a/results.jsonl" <<'PY' || fail "sweep results"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
h = [r["metrics"]["scheduler_report"].get("hybrid") for r in rows]
assert h[0]["lent_node_s"] == 0 and h[0]["lends"] == 0, "the static split lent nodes"
for i in (1, 2):
    assert h[i]["lends"] > 0 and h[i]["lent_node_s"] > 0 and h[i]["reclaims"] > 0, f"point {i} did not lend and reclaim: {h[i]}"
assert h[1]["reclaim_preemptions"] == 0, "drain reclaim requeued jobs"
assert h[2]["reclaim_preemptions"] > 0, "preempt reclaim requeued nothing"
assert h[3] is None and h[4] is None, "the single-scheduler points are not hybrid"
for r in rows:
    assert r["metrics"]["jobs"] == rows[0]["metrics"]["jobs"], "the points ran different workloads"
PY
"$FS" run "$SRC/examples/hybrid/scenario.json" --out "$T/run" -q --check-invariants || fail "--check-invariants"
head -1 "$T/run/jobs.csv" | has ',side,' || fail "no side column in jobs.csv"
# KAI on the Kubernetes side.
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["scheduler"]["kubernetes"] = {"type": "kai", "manifests": ["kai-queues.yaml"], "queue_map": {"*": "services"}}; print(json.dumps(d))' \
  "$SRC/examples/hybrid/scenario.json" > "$T/kai.json"
cp "$SRC/examples/hybrid/kai-queues.yaml" "$T/"
"$FS" run "$T/kai.json" --out "$T/kai" -q --check-invariants || fail "kai side"
grep -q '"model": "kai"' "$T/kai/metrics.json" || fail "kai side not in the report"

# Bad blocks: one line, exit 2, the JSON pointer of the mistake, no output. One python call
# writes every case (NAME POINTER EDIT), then each runs.
B="$T/bad"
mkdir "$B" && cp "$SRC/examples/hybrid/queues.yaml" "$B/"
python3 - "$SRC/examples/hybrid/scenario.json" "$B" <<'PY'
import json, sys
cases = {
    "side-type": ("/scheduler/kubernetes/type", lambda s: s["kubernetes"].update(type="slurm")),
    "side-param": ("/scheduler/slurm/bogus", lambda s: s["slurm"].update(bogus=1)),
    "too-many": ("/scheduler/slurm_nodes", lambda s: s.update(slurm_nodes=8)),
    "no-node": ("/scheduler/slurm_nodes/1", lambda s: s.update(slurm_nodes=["gpu001", "gpu999"])),
    "unlisted": ("/scheduler/classes", lambda s: s["classes"].update(kubernetes=["inference"])),
    "both-sides": ("/scheduler/classes/kubernetes/0", lambda s: s["classes"].update(kubernetes=["sim"])),
    "reclaim": ("/scheduler/lending/reclaim", lambda s: s["lending"].update(reclaim="kill")),
    "manifest": ("/scheduler/kubernetes/manifests/0", lambda s: s["kubernetes"].update(manifests=["nope.yaml"])),
}
with open(sys.argv[2] + "/cases", "w") as idx:
    for name, (ptr, edit) in cases.items():
        d = json.load(open(sys.argv[1]))
        edit(d["scheduler"])
        json.dump(d, open(f"{sys.argv[2]}/{name}.json", "w"))
        idx.write(f"{name} {ptr}\n")
PY
nbad=0
while read -r name ptr; do
  set +e
  "$FS" run "$B/$name.json" --out "$T/out-$name" 2> "$T/err"; rc=$?
  set -e
  [ "$rc" -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "$name.json:$ptr: " "$T/err" && [ ! -e "$T/out-$name" ] \
    || fail "$name: rc $rc, $(cat "$T/err")"
  nbad=$((nbad + 1))
done < "$B/cases"
[ "$nbad" -eq 8 ] || fail "only $nbad bad cases ran"
echo "hybrid.sh: 5 setups deterministic; static lends nothing, lending lends and reclaims; 8 bad blocks refused"
