#!/bin/bash
# Kubernetes manifests as users write them: every upstream Kueue and KAI example manifest
# (tests/schedulers/data/upstream, SOURCES.md there) goes through `floorsim lint`, which runs
# the reader `run` uses: none is refused (exit 2), and what floorsim does not simulate is named.
# Then, end to end: Kueue's DRA example queues unchanged with memory binding before GPUs;
# flavor taints and tolerations, a held LocalQueue, and a TAS rack-required gang.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?FLOORSIM_SOURCE_DIR not set}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
UP="$SRC/tests/schedulers/data/upstream"

n=0
while IFS= read -r f; do
  set +e
  "$FS" lint "$f" > "$TMP/lint" 2>&1; rc=$?
  set -e
  [ "$rc" -le 1 ] || fail "lint refused the upstream file $f (exit $rc): $(cat "$TMP/lint")"
  n=$((n + 1))
done < <(find "$UP" -name '*.yaml' | sort)
[ "$n" -eq 33 ] || fail "expected 33 upstream manifests, found $n"

# What is read but not simulated is named at its line.
lint_has() {  # FILE PATTERN
  "$FS" lint "$UP/$1" > "$TMP/lint" 2>&1 || true
  grep -qE -- "$2" "$TMP/lint" || fail "lint $1: no line matching '$2' in: $(cat "$TMP/lint")"
}
# Topology and topologyName are modelled (topology-aware scheduling): lint names neither.
"$FS" lint "$UP/kueue/site/static/examples/tas/sample-queues.yaml" > "$TMP/lint" 2>&1 || true
! grep -qE 'kind Topology|topologyName' "$TMP/lint" || fail "lint still names Topology as not modelled: $(cat "$TMP/lint")"
lint_has kueue/site/static/examples/multikueue/multikueue-setup.yaml 'MultiKueue\) is not modelled'
lint_has kueue/site/static/examples/provisioning/provisioning-setup.yaml 'ProvisioningRequest\): provisioning is modelled as a delay'
lint_has kueue/site/static/examples/admin/resource-flavor-tolerations.yaml 'clean|manifest'
lint_has kai/docs/quickstart/pods/gpu-pod.yaml 'gpu-pod.yaml:[0-9]+: warning \[manifest-kind-not-scheduled\] kind Pod \(v1\) is a workload'
# KAI Queue cpu and memory quotas are modelled (divided like GPUs): lint names neither.
"$FS" lint "$UP/kai/docs/priority/example/limited-queue.yaml" > "$TMP/lint" 2>&1 || true
! grep -qE 'cpu|memory' "$TMP/lint" || fail "lint still names KAI cpu/memory quotas: $(cat "$TMP/lint")"
lint_has kueue/site/static/examples/jobs/sample-job.yaml 'kind Job \(batch/v1\) is a workload'

# Kueue's DRA example queues, unchanged: example.com/gpu, cpu and memory all bind.
D="$SRC/tests/cli/data/k8s"
"$FS" run "$D/dra_memory.json" --out "$TMP/dra" -q 2> "$TMP/err" || fail "dra_memory run: $(cat "$TMP/err")"
start4=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="start_s") c=i} $1=="4"{print $c}' "$TMP/dra/jobs.csv")
[ "$start4" = 3600 ] || fail "job 4 should wait for memory quota until 3600 s, started at '$start4'"
start3=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="start_s") c=i} $1=="3"{print $c}' "$TMP/dra/jobs.csv")
[ "$start3" = 0 ] || fail "job 3 should start at once, started at '$start3'"

# Taints: the untolerating job skips spot; the tolerating one takes it; the held queue waits.
"$FS" run "$D/taints.json" --out "$TMP/t" -q 2> "$TMP/err" || fail "taints run: $(cat "$TMP/err")"
grep -q '^1,.*od001' "$TMP/t/jobs.csv" || fail "job 1 should run on the on-demand node: $(cat "$TMP/t/jobs.csv")"
grep -q '^2,.*spot001' "$TMP/t/jobs.csv" || fail "job 2 should run on the spot node: $(cat "$TMP/t/jobs.csv")"
grep -q '^3,.*LocalQueueStopped' "$TMP/t/jobs.csv" || fail "job 3 should wait on its held LocalQueue: $(cat "$TMP/t/jobs.csv")"
# Kueue's ProvisioningRequest example, unchanged: the pods wait for the provisioning delay.
"$FS" run "$D/provisioning.json" --out "$TMP/p" -q 2> "$TMP/err" || fail "provisioning run: $(cat "$TMP/err")"
start1=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="start_s") c=i} $1=="1"{print $c}' "$TMP/p/jobs.csv")
[ "$start1" = 300 ] || fail "job 1 should start after the 300 s provisioning delay, started at '$start1'"
# Kueue's TAS example queues, unchanged: the rack-required gang stays in one leaf.
"$FS" run "$D/tas.json" --out "$TMP/tas" -q 2> "$TMP/err" || fail "tas run: $(cat "$TMP/err")"
grep -q '^2,.*gpu\[003-004\]' "$TMP/tas/jobs.csv" || fail "job 2 should run in leaf 2 (gpu003, gpu004): $(cat "$TMP/tas/jobs.csv")"
echo "manifests.sh: $n upstream manifests read, none refused; DRA quotas, taints and stopPolicy end to end"
