#!/bin/bash
# End to end: KAI's time-based fairshare example queues (two-queue-oscillation, unchanged) on
# one 16-GPU node, each team with four 16-GPU jobs. Without time-aware fairness team-a holds
# the node until its backlog is done; with it (and a session a minute) team-b reclaims as soon
# as team-a's historical usage outweighs it, and the two alternate. A cpu request the
# queues cannot divide is refused with its JSON pointer.
set -euo pipefail
source "$(dirname "$0")/preamble.bash"
SC="$SRC/tests/cli/data/k8s/kai_timeaware.json"
scenario() {  # TIME_AWARE EXTRA_JSON: the example with time-aware fairness on/off and keys merged in
  python3 - "$SC" "$1" "$2" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
s["scheduler"]["manifests"] = [os.path.join(os.path.dirname(sys.argv[1]), m) for m in s["scheduler"]["manifests"]]
s["scheduler"]["time_aware_fairness"] = sys.argv[2] == "on"
s["scheduler"].update(json.loads(sys.argv[3]))
print(json.dumps(s))
PY
}
first_start() {  # JOBS_CSV CLASS
  awk -F, -v c="$2" 'NR==1{for(i=1;i<=NF;i++) if($i=="start_s") s=i} NR>1 && $2==c {print $s}' "$1" | sort -n | head -1
}
# The example as shipped has time-aware fairness on.
"$FS" run "$SC" --out "$T/on" -q --check-invariants 2> "$T/err" || fail "the example as shipped: $(cat "$T/err")"
scenario off '{}' > "$T/off.json"
"$FS" run "$T/off.json" --out "$T/off" -q --check-invariants 2> "$T/err" || fail "off run: $(cat "$T/err")"
[ "$(first_start "$T/off/jobs.csv" team-b)" = 7200 ] || fail "off: team-b should wait for team-a's four jobs"
b_on=$(first_start "$T/on/jobs.csv" team-b)
python3 -c "import sys; sys.exit(0 if float('$b_on') < 1800 else 1)" || fail "on: team-b started at $b_on, expected before 1800"
python3 - "$T/on/metrics.json" <<'PY' || fail "on: report"
import json, sys
r = json.load(open(sys.argv[1]))["scheduler_report"]
assert r["actions"]["reclaim_victims"] > 0, r["actions"]
assert r["time_aware_fairness"]["k_value"] == 1, r["time_aware_fairness"]
assert r["queues"]["training-department"]["historical_usage_share"] > 0.9, r["queues"]
PY
# requests_per_job: KAI queues divide cpu and memory only.
scenario on '{"requests_per_job": {"pods": 1}}' > "$T/bad.json"
set +e
"$FS" run "$T/bad.json" --out "$T/bad" 2> "$T/bad-err"; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bad requests_per_job: exit $rc"
has '/scheduler/requests_per_job/pods: .*expected cpu or memory' < "$T/bad-err" || fail "bad requests_per_job: $(cat "$T/bad-err")"
[ ! -e "$T/bad" ] || fail "partial output after bad input"
echo ok
