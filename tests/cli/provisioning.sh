#!/bin/bash
# End to end: Kueue's upstream ProvisioningRequest example (site/static/examples/provisioning/
# provisioning-setup.yaml, read unchanged) with a modelled provisioning delay and failure rate:
# jobs.csv shows each job's attempts, failures and provisioning wait, metrics.json the totals,
# two runs are byte-identical (the failures are drawn from the seed), the retries follow the
# example's retryStrategy; a failure rate without a delay and a bad node label are one line, exit 2.
set -euo pipefail
source "$(dirname "$0")/preamble.bash"

MF="$SRC/tests/schedulers/data/upstream/kueue/site/static/examples/provisioning/provisioning-setup.yaml"
cat > "$T/prov.json" <<JSON
{"name": "provisioning",
 "cluster": {"node_groups": [{"prefix": "h", "count": 2, "gpus_per_node": 8,
                              "labels": {"cloud.google.com/gke-nodepool": "h100-pool"}}]},
 "workload": {"jobs": [
  {"id": 1, "runtime_s": 600, "gpus": 8, "class": "train"},
  {"id": 2, "runtime_s": 600, "gpus": 8, "class": "train"},
  {"id": 3, "runtime_s": 600, "gpus": 8, "class": "train"},
  {"id": 4, "runtime_s": 600, "gpus": 8, "class": "train"}]},
 "scheduler": {"type": "kueue", "manifests": ["$MF"], "queue_map": {"*": "default/user-queue"},
               "provisioning_request": {"delay_s": 120, "failure_probability": 0.5}}}
JSON
"$FS" run "$T/prov.json" --out "$T/a" -q 2> "$T/err" || fail "run exited $?: $(cat "$T/err")"
"$FS" run "$T/prov.json" --out "$T/b" -q 2>/dev/null
for f in metrics.json jobs.csv; do cmp -s "$T/a/$f" "$T/b/$f" || fail "$f differs between two runs"; done
head -1 "$T/a/jobs.csv" | has 'pods_ready_timeouts,provisioning_attempts,provisioning_failures,provisioning_wait_s$' ||
  fail "no provisioning columns in jobs.csv: $(head -1 "$T/a/jobs.csv")"
attempts=$(jq -r '.scheduler_report.provisioning_request.attempts' "$T/a/metrics.json")
failures=$(jq -r '.scheduler_report.provisioning_request.failures' "$T/a/metrics.json")
rejected=$(jq -r '.scheduler_report.provisioning_request.rejected' "$T/a/metrics.json")
# Every attempt is one 120 s delay: attempts = failures + started jobs; a job is rejected after
# backoffLimitCount 2 retries (3 failed attempts).
started=$(awk -F, 'NR > 1 && $0 !~ /PENDING/' "$T/a/jobs.csv" | wc -l)
[ "$attempts" -eq $((failures + started)) ] || fail "attempts $attempts, failures $failures, started $started"
[ "$failures" -gt 0 ] || fail "no failed attempt at failure_probability 0.5"
[ "$((started + rejected))" -eq 4 ] || fail "started $started + rejected $rejected, expected 4 jobs"
awk -F, 'NR > 1 { if ($(NF-2) * 120 != $NF || $(NF-1) > 3) exit 1 }' "$T/a/jobs.csv" ||
  fail "provisioning wait is not 120 s per attempt, or more than 3 failures: $(cat "$T/a/jobs.csv")"
# Seed 1: job 1's first attempt fails at 120 s; backoffBaseSeconds 0 retries it in the same
# cycle (it is older than job 2), and the second attempt passes: it starts at 240 s.
grep -q '^1,train,.*,8,0,0,240,840,240,COMPLETED,.*,2,1,240$' "$T/a/jobs.csv" ||
  fail "job 1 should start at 240 after two attempts: $(grep '^1,' "$T/a/jobs.csv")"
jq -r '.scheduler_report.warnings[]' "$T/a/metrics.json" | has 'retries follow ProvisioningRequestConfig prov-test-config' ||
  fail "the check's config is not named"

# A failure rate needs a delay; a node label value with a space is not a label.
jq '.scheduler.provisioning_request.delay_s = 0' "$T/prov.json" > "$T/bad1.json"
set +e
"$FS" run "$T/bad1.json" --out "$T/bad1" 2> "$T/bad1.err"; rc=$?
set -e
[ "$rc" -eq 2 ] && [ "$(wc -l < "$T/bad1.err")" -eq 1 ] || fail "failure without delay: exit $rc: $(cat "$T/bad1.err")"
has '/scheduler/provisioning_request/failure_probability' < "$T/bad1.err" || fail "pointer missing: $(cat "$T/bad1.err")"
[ ! -e "$T/bad1" ] || fail "a bad scenario wrote output"
echo "ok"
