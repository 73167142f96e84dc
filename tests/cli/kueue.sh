#!/bin/bash
# End to end: the Kueue quant example (examples/kueue-quant: pricing, risk and training
# ClusterQueues in one cohort) runs twice with byte-identical outputs and reports floor
# attainment per class; the ResourceQuota caveat example shows a team within its ceiling
# waiting (NoNodes, ResourceQuotaExceeded, waitForPodsReady evictions); the Slurm/Kueue
# comparison files differ only in their scheduler block; a bad manifest is FILE:LINE, exit 2.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?FLOORSIM_SOURCE_DIR not set}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

EX="$SRC/examples/kueue-quant"
"$FS" run "$EX/scenario.json" --out "$TMP/a" -q 2> "$TMP/err" || fail "run exited $?: $(cat "$TMP/err")"
"$FS" run "$EX/scenario.json" --out "$TMP/b" -q 2>/dev/null
for f in metrics.json jobs.csv timeline.csv scenario.resolved.json; do
  cmp -s "$TMP/a/$f" "$TMP/b/$f" || fail "kueue-quant: $f differs between two runs"
done
for c in var eod intraday training; do
  att=$(jq -r ".classes.$c.floor_attainment" "$TMP/a/metrics.json")
  [ "$att" != null ] || fail "no floor attainment for class $c"
  awk -v a="$att" 'BEGIN { exit !(a > 0.9 && a <= 1.0) }' || fail "class $c floor attainment $att, expected > 0.9"
done
[ "$(jq -r '.scheduler_report.evictions_by_reason.InCohortReclamation' "$TMP/a/metrics.json")" -gt 0 ] ||
  fail "no reclaimWithinCohort eviction in the quant night"
[ "$(jq -r '.classes.var.deadline_misses' "$TMP/a/metrics.json")" = 0 ] || fail "VaR missed its deadline"
head -1 "$TMP/a/jobs.csv" | grep -q 'cluster_queue,local_queue,pods_ready_timeouts$' || fail "no kueue columns in jobs.csv"
grep -q '"wait_for_pods_ready"' "$TMP/a/scenario.resolved.json" || fail "defaults not written to scenario.resolved.json"
if grep -q PENDING "$TMP/a/jobs.csv"; then fail "a job never started"; fi

# The ResourceQuota caveat.
"$FS" run "$EX/resourcequota.json" --out "$TMP/rq" -q 2>/dev/null || fail "resourcequota example failed"
grep -q '^2,risk,.*,NoNodes,risk,risk/var,' "$TMP/rq/jobs.csv" || fail "job 2 should wait for nodes within its ceiling"
grep -q '^3,risk,.*,ResourceQuotaExceeded,risk,risk/var,' "$TMP/rq/jobs.csv" || fail "job 3 should hit the ResourceQuota ceiling"
[ "$(jq -r '.scheduler_report.namespaces.risk.hard_gpus' "$TMP/rq/metrics.json")" = 8 ] || fail "risk ceiling not reported"
[ "$(jq -r '.scheduler_report.wait_for_pods_ready.timeout_evictions' "$TMP/rq/metrics.json")" -gt 0 ] ||
  fail "no waitForPodsReady eviction in the caveat example"

# One scenario, two models: only the scheduler block differs.
CMP="$SRC/examples/compare-slurm-kueue"
cmp -s <(jq -S 'del(.scheduler)' "$CMP/slurm.json") <(jq -S 'del(.scheduler)' "$CMP/kueue.json") ||
  fail "compare-slurm-kueue: slurm.json and kueue.json differ outside the scheduler block"
[ "$(jq -r .scheduler.type "$CMP/slurm.json")/$(jq -r .scheduler.type "$CMP/kueue.json")" = slurm/kueue ] ||
  fail "compare-slurm-kueue: expected a slurm and a kueue scheduler block"
"$FS" validate "$CMP/slurm.json" > /dev/null 2>&1 || fail "slurm.json does not validate"
"$FS" run "$CMP/kueue.json" --out "$TMP/ck" -q 2>/dev/null || fail "compare kueue.json failed"
cmp -s "$TMP/a/jobs.csv" "$TMP/ck/jobs.csv" || fail "compare kueue.json should replay the kueue-quant night"

# Bad input: a wrong type in a manifest is FILE:LINE, exit 2, and no output directory.
mkdir -p "$TMP/bad"
cp "$EX/scenario.json" "$TMP/bad/"
sed 's/nominalQuota: 96/nominalQuota: lots/' "$EX/queues.yaml" > "$TMP/bad/queues.yaml"
line=$(grep -n 'nominalQuota: lots' "$TMP/bad/queues.yaml" | head -1 | cut -d: -f1)
set +e
"$FS" run "$TMP/bad/scenario.json" --out "$TMP/bad-run" 2> "$TMP/bad-err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad manifest: exit $rc, expected 2"
grep -q "queues.yaml:$line: .*nominalQuota is 'lots'" "$TMP/bad-err" || fail "bad manifest: message was: $(cat "$TMP/bad-err")"
[ ! -e "$TMP/bad-run" ] || fail "bad manifest: partial output written"
echo "ok"
