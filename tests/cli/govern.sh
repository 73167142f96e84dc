#!/bin/bash
# End to end, change control (issue 9): run with policy changes -> approval log; impact with and
# without a change; audit pack (sacct read back by `trace stats`); lint exit codes on every
# rule's examples; rehearse fails on governance for the loophole night; bad input exits 2.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?FLOORSIM_SOURCE_DIR not set}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
G="$SRC/examples/govern"

"$FS" run "$G/changes.json" --out "$TMP/run" > "$TMP/out" 2> "$TMP/err" || fail "run exited $?: $(cat "$TMP/err")"
grep -q 'policy changes: 2 applied, 0 applied without sign-off, 2 rejected' "$TMP/out" || fail "summary: $(cat "$TMP/out")"
head -1 "$TMP/run/approval_log.csv" | grep -q '^change_id,time_s,requester,requester_role,requester_team,approvers,kind,target,field,value,before,after,justification,expected_effect,affected_classes,affected_teams,missing_signoff,outcome,reason,cancelled_jobs$' || fail "approval_log.csv header"
[ "$(tail -n +2 "$TMP/run/approval_log.csv" | wc -l)" -eq 4 ] || fail "approval_log.csv rows"
grep -q '^pricing-priority-no-risk,900,ops1,.*,rejected,needs sign-off from team risk' "$TMP/run/approval_log.csv" || fail "risk sign-off rejection not logged"
grep -q '"outcome": "applied"' "$TMP/run/approval_log.json" || fail "approval_log.json"
grep -q '"governance"' "$TMP/run/metrics.json" || fail "no governance block in metrics.json"
# Deterministic.
"$FS" run "$G/changes.json" --out "$TMP/run2" -q 2>/dev/null
cmp -s "$TMP/run/approval_log.csv" "$TMP/run2/approval_log.csv" || fail "approval log differs between runs"

# Impact of one proposed change: a table and JSON with before/after/delta per class.
"$FS" impact "$G/changes.json" --change pricing-priority-no-risk --out "$TMP/impact" > "$TMP/imp" 2>/dev/null || fail "impact exited $?"
grep -q '^risk ' "$TMP/imp" || fail "impact table: $(cat "$TMP/imp")"
python3 - "$TMP/impact/impact.json" <<'PY' || fail "impact.json"
import json, sys
j = json.load(open(sys.argv[1]))
r = j["classes"]["risk"]
assert j["changes"] == ["pricing-priority-no-risk"]
assert r["p99_wait_s"]["delta"] == r["p99_wait_s"]["after"] - r["p99_wait_s"]["before"]
assert r["deadline_margin_s"]["delta"] < 0, r  # the pricing raise costs risk margin
PY
set +e
"$FS" impact "$G/changes.json" --change nope > /dev/null 2> "$TMP/e"; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "impact unknown change: exit $rc"
grep -q 'no change with id "nope"' "$TMP/e" || fail "impact unknown change message: $(cat "$TMP/e")"

# Audit pack: policy, approval log, sacct accounting readable by the sacct reader.
"$FS" audit "$TMP/run" --scenario "$G/changes.json" --out "$TMP/pack" > /dev/null 2>&1 || fail "audit exited $?"
for f in policy.json policy.md approval_log.csv approval_log.json sacct.txt; do test -f "$TMP/pack/$f" || fail "no $f in the pack"; done
head -1 "$TMP/pack/sacct.txt" | grep -q '^JobID|JobIDRaw|JobName|Partition|Account|User|QOS|State|Submit|' || fail "sacct header"
grep -q '^1.batch|1.batch|batch|' "$TMP/pack/sacct.txt" || fail "no batch step rows"
"$FS" trace stats "$TMP/pack/sacct.txt" --format sacct > "$TMP/stats" || fail "sacct reader could not read the pack"
# 20 jobs started; 4 of them were preempted with requeue and cancelled while queued again (the
# association deletion): their last record is CANCELLED, never started, their first PREEMPTED.
grep -q '^jobs: 16$' "$TMP/stats" || fail "sacct read back: $(cat "$TMP/stats")"
grep -q 'requeued_earlier_attempt: 4' "$TMP/stats" || fail "earlier attempts: $(cat "$TMP/stats")"
grep -q 'step_row: 20' "$TMP/stats" || fail "step rows: $(cat "$TMP/stats")"
# Partition and QOS as slurmctld records them, one row per attempt of a requeued job (sacct
# --duplicates): job 1 is preempted with requeue, then loses a node, then completes.
D="$SRC/tests/cli/data"
"$FS" run "$D/audit_requeue.json" --out "$TMP/rq" -q || fail "run of audit_requeue"
"$FS" audit "$TMP/rq" --scenario "$D/audit_requeue.json" --out "$TMP/rqpack" > /dev/null || fail "audit of audit_requeue"
[ "$(grep -c '^1|1|' "$TMP/rqpack/sacct.txt")" -eq 3 ] || fail "job 1: expected 3 attempt rows: $(grep '^1|' "$TMP/rqpack/sacct.txt")"
grep '^1|1|' "$TMP/rqpack/sacct.txt" | cut -d'|' -f4,5,7,8 | tr '\n' ' ' | grep -q '^batch|research|burst|PREEMPTED batch|research|burst|NODE_FAIL batch|research|burst|COMPLETED $' ||
  fail "job 1 attempts: $(grep '^1|1|' "$TMP/rqpack/sacct.txt" | cut -d'|' -f4,5,7,8 | tr '\n' ' ')"
grep -q '^2|2|default|batch|desk|bob|risk|COMPLETED|' "$TMP/rqpack/sacct.txt" || fail "job 2 row: $(grep '^2|2|' "$TMP/rqpack/sacct.txt")"
grep -q '^3|3|default|other|desk|bob|risk|COMPLETED|' "$TMP/rqpack/sacct.txt" || fail "job 3 row: $(grep '^3|3|' "$TMP/rqpack/sacct.txt")"
[ "$(grep -c '^1.batch|' "$TMP/rqpack/sacct.txt")" -eq 3 ] || fail "job 1: a batch step per attempt"
"$FS" trace stats "$TMP/rqpack/sacct.txt" --format sacct > "$TMP/rqstats" || fail "sacct reader on attempt rows"
grep -q '^jobs: 3$' "$TMP/rqstats" && grep -q 'requeued_earlier_attempt: 2' "$TMP/rqstats" || fail "read back: $(cat "$TMP/rqstats")"
# Retention and format as settings.
"$FS" audit "$TMP/rq" --scenario "$D/audit_requeue.json" --out "$TMP/rqkeep" --purge-job-after 1hours --sacct-format parsable > /dev/null || fail "audit --purge-job-after"
grep -q '"records_purged": [1-9]' "$TMP/rqkeep/policy.json" && grep -q '"purge_job_after": "1hours"' "$TMP/rqkeep/policy.json" ||
  fail "retention not recorded: $(grep -A6 '"accounting"' "$TMP/rqkeep/policy.json")"
! grep -q '^3|3|' "$TMP/rqkeep/sacct.txt" || fail "job 3 ended over an hour before the end and was kept"
grep -q '^1|1|.*|COMPLETED|.*|$' "$TMP/rqkeep/sacct.txt" || fail "--sacct-format parsable: no trailing delimiter"
grep -q 'PurgeJobAfter = 1hours' "$TMP/rqkeep/policy.md" || fail "policy.md lacks the retention"
set +e
"$FS" audit "$TMP/rq" --scenario "$D/audit_requeue.json" --out "$TMP/rqbad" --purge-job-after 3weeks > /dev/null 2> "$TMP/e"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "expected N, Nhours, Ndays or Nmonths" "$TMP/e" && [ ! -e "$TMP/rqbad" ] || fail "bad --purge-job-after: $rc $(cat "$TMP/e")"

# Without --scenario the resolved copy's relative paths do not resolve: exit 2 with the hint.
set +e
"$FS" audit "$TMP/run" --out "$TMP/pack3" > /dev/null 2> "$TMP/e"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q 'pass --scenario' "$TMP/e" || fail "audit without --scenario: $rc $(cat "$TMP/e")"
# A pack from the wrong scenario is refused.
set +e
"$FS" audit "$TMP/run" --scenario "$G/loophole.json" --out "$TMP/pack2" > /dev/null 2> "$TMP/e"; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "audit of a mismatched scenario: exit $rc"
test ! -e "$TMP/pack2" || fail "partial audit pack left behind"

# Lint: every rule's failing example exits 1 naming the rule, every passing one exits 0.
for d in "$SRC"/examples/lint/*/; do
  rule=$(basename "$d")
  for f in "$d"fail.* "$d"pass.*; do
    set +e
    "$FS" lint "$f" > "$TMP/lint" 2>&1; rc=$?
    set -e
    case "$(basename "$f")" in
      fail.*) [ "$rc" -eq 1 ] && grep -q "\[$rule\]" "$TMP/lint" || fail "lint $f: exit $rc: $(cat "$TMP/lint")" ;;
      pass.*) [ "$rc" -eq 0 ] || fail "lint $f: exit $rc: $(cat "$TMP/lint")" ;;
    esac
  done
done
set +e
"$FS" lint "$SRC/examples/slurm-quant/slurm.conf" --dump "$SRC/examples/slurm-quant/quant.dump" > "$TMP/lint" 2>&1; rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q 'quant.dump:[0-9]*: warning \[noreserve-qos-not-preemptable\]' "$TMP/lint" || fail "lint slurm.conf: $rc $(cat "$TMP/lint")"
set +e
"$FS" lint "$TMP/missing.json" > /dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "lint of a missing file: exit $rc"

# Rehearse: the loophole night fails on governance (exit 1); closed, the criterion holds.
set +e
"$FS" rehearse "$G/loophole.json" --out "$TMP/rh" > "$TMP/rh.out" 2>/dev/null; rc=$?
set -e
[ "$rc" -eq 1 ] || fail "rehearse loophole: exit $rc"
grep -q 'change log: no unapproved edits .*FAIL *governance' "$TMP/rh.out" || fail "governance row: $(cat "$TMP/rh.out")"
test -f "$TMP/rh/approval_log.csv" || fail "rehearse wrote no approval log"
"$FS" rehearse "$G/loophole-closed.json" --out "$TMP/rh2" > "$TMP/rh2.out" 2>/dev/null || fail "rehearse closed loophole failed: $(cat "$TMP/rh2.out")"

# Bad input: an unknown QOS field is a JSON-pointer error, exit 2, no output.
python3 - "$G/changes.json" "$TMP/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["changes"][0]["what"]["field"] = "Colour"
d["scheduler"]["slurm_conf"] = sys.argv[1].rsplit("/", 2)[0] + "/slurm-quant/slurm.conf"
d["scheduler"]["sacctmgr_dump"] = sys.argv[1].rsplit("/", 2)[0] + "/slurm-quant/quant.dump"
json.dump(d, open(sys.argv[2], "w"))
PY
set +e
"$FS" run "$TMP/bad.json" --out "$TMP/bad-run" 2> "$TMP/e"; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad change: exit $rc"
grep -q 'bad.json:/changes/0/what/field: got "Colour"' "$TMP/e" || fail "bad change message: $(cat "$TMP/e")"
test ! -e "$TMP/bad-run" || fail "partial output after bad input"
echo "ok"
