#!/bin/bash
# Kueue PodSets and partial admission end to end (tests/cli/data/k8s/podsets.json): job 2, a
# batch Job with kueue.x-k8s.io/job-min-parallelism, is admitted with the pods that fit and runs
# longer on fewer GPUs (jobs.csv admitted_gpus); a launcher PodSet is charged to cpu quota; the
# runtime assumption is warned about; bad job_podsets are one line with the JSON pointer, exit 2.
set -euo pipefail
source "$(dirname "$0")/preamble.bash"
D="$SRC/tests/cli/data/k8s"
col() {  # col FILE JOB COLUMN
  awk -F, -v j="$2" -v c="$3" 'NR==1{for(i=1;i<=NF;i++) if($i==c) k=i} $1==j{print $k}' "$1"
}
"$FS" run "$D/podsets.json" --out "$T/a" -q 2> "$T/err" || fail "podsets run: $(cat "$T/err")"
[ "$(col "$T/a/jobs.csv" 2 admitted_gpus)" = 4 ] || fail "job 2 should be admitted with 4 of its 8 GPUs: $(cat "$T/a/jobs.csv")"
[ "$(col "$T/a/jobs.csv" 2 end_s)" = 1200 ] || fail "job 2 on half its GPUs should end at 1200 s: $(cat "$T/a/jobs.csv")"
[ "$(col "$T/a/jobs.csv" 1 admitted_gpus)" = 4 ] || fail "job 1 should be admitted whole"
[ "$(col "$T/a/jobs.csv" 3 start_s)" = 600 ] || fail "job 3 should wait for job 1 (quota full), started at $(col "$T/a/jobs.csv" 3 start_s)"
[ "$(jq -r .scheduler_report.partial_admissions "$T/a/metrics.json")" = 1 ] || fail "one partial admission expected"
jq -r '.scheduler_report.warnings[]' "$T/a/metrics.json" | has 'runtime x requested / admitted pods' || fail "no runtime assumption warning"
jq -r '.scheduler_report.warnings[]' "$T/a/metrics.json" | has 'not placed on nodes' || fail "no launcher placement warning"
# The gate off: job 2 waits for its 8 GPUs.
jq '.scheduler.feature_gates = {"PartialAdmission": false}' "$D/podsets.json" > "$T/off.json"
cp "$D/podsets.yaml" "$T/"
"$FS" run "$T/off.json" --out "$T/off" -q 2>/dev/null || fail "gate-off run failed"
[ "$(col "$T/off/jobs.csv" 2 admitted_gpus)" = 8 ] || fail "gate off: job 2 should run whole: $(cat "$T/off/jobs.csv")"

# Bad input: one line, the JSON pointer, exit 2, no output.
bad() {  # bad JQ-EDIT REGEX
  jq "$1" "$D/podsets.json" > "$T/bad.json"
  set +e
  "$FS" run "$T/bad.json" --out "$T/bad-out" 2> "$T/bad-err"
  local rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "bad ($1): exit $rc, expected 2"
  [ "$(wc -l < "$T/bad-err")" -eq 1 ] || fail "bad ($1): expected one line, got: $(cat "$T/bad-err")"
  grep -qE "$2" "$T/bad-err" || fail "bad ($1): message was: $(cat "$T/bad-err")"
  [ ! -e "$T/bad-out" ] || fail "bad ($1): left an output directory"
}
bad '.scheduler.job_podsets.mpi[0].min_count = 1' 'bad\.json:/scheduler/job_podsets/mpi/1/min_count: a second PodSet with min_count; expected at most one'
bad '.scheduler.job_podsets.mpi[0].count = "job"' 'bad\.json:/scheduler/job_podsets/mpi: 2 PodSets with count "job"; expected exactly one'
bad '.scheduler.job_podsets.mpi[0].requests = {"nvidia.com/gpu": 1}' '/scheduler/job_podsets/mpi/0/requests/nvidia\.com~1gpu: GPUs are the job.s own'
bad '.scheduler.job_podsets.mpi[0].count = 0' '/scheduler/job_podsets/mpi/0/count: got 0; expected a pod count >= 1 or "job"'
echo "podsets.sh: partial admission, PodSets and their bad input end to end"
