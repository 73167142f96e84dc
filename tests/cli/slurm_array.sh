#!/usr/bin/env bash
# End-to-end on a real Slurm: a single-host cluster (Debian's slurm-wlm 22.05 and munge) runs
# examples/sweeps/slurm-array.sbatch as a job array, one task per shard, then `floorsim merge` as
# a job that depends on the array (afterok), as docs/sweeps.md tells a site to; the merged files
# must be byte-identical to a local threaded run of the same sweep.
# munged, slurmctld and slurmd run in the foreground in a private directory, on loopback ports
# that were free, and are stopped by their PIDs at the end; nothing else is touched.
# Skips (77) only when the Slurm or munge binaries are absent; .ci/setup installs them.
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?}"
FS=$(realpath "$FS")
for b in munged slurmctld slurmd sbatch squeue; do
  command -v "$b" >/dev/null || { echo "SKIP: $b not installed (apt-get install munge slurmctld slurmd slurm-client)"; exit 77; }
done
T=$(mktemp -d /tmp/floorsim-slurm-array.XXXXXX)
chmod 700 "$T"
pids=()
stop() {  # the daemons this test started, by PID; then the private directory
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap stop EXIT
fail() {
  echo "FAIL: $*" >&2
  for f in "$T"/ctld.log "$T"/slurmd.log "$T"/munged.log "$T"/run/*.log; do
    [ -f "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }
  done
  exit 1
}
# Three consecutive loopback ports no one listens on (slurmctld, slurmd), starting at a port
# picked from this shell's PID so that two runs at once do not collide.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
base=$((20000 + ($$ % 2000) * 10))
while ! { port_free "$base" && port_free $((base + 1)); }; do base=$((base + 10)); done
user=$(id -un)

# munge: a fresh key, its own socket, no system state.
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge.key"
munged --foreground --force --socket="$T/munge.sock" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
  --log-file="$T/munged.log" --seed-file="$T/munged.seed" 2>>"$T/munged.log" &
pids+=($!)
for _ in $(seq 50); do [ -S "$T/munge.sock" ] && break; sleep 0.1; done
[ -S "$T/munge.sock" ] || fail "munged did not start"

mkdir -p "$T/state" "$T/spool" "$T/run"
cpus=4
cat > "$T/slurm.conf" <<CONF
ClusterName=floorsim-array-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge.sock
SlurmUser=$user
SlurmdUser=$user
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/ctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/ctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$T/jobcomp.txt
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
SlurmdParameters=config_overrides
ReturnToService=2
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=node1 NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$T/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" > "$T/ctld.out" 2>&1 &
pids+=($!)
slurmd -D -N node1 -f "$SLURM_CONF" > "$T/slurmd.out" 2>&1 &
pids+=($!)
up=""
for _ in $(seq 60); do
  up=$(sinfo -h -N -t idle -o %N 2>/dev/null || true)
  [ "$up" = node1 ] && break
  sleep 0.5
done
[ "$up" = node1 ] || fail "node1 did not come up idle: $(sinfo -N 2>&1 | tail -2)"

# The sweep as a job array of 3 tasks (the script's own #SBATCH lines ask for 8 tasks of 8 CPUs
# for an hour; the command line overrides them for this 4-CPU node), then merge after it.
unset OUT SHARDS  # the script reads them; --export=ALL would pass a caller's own
sweep="$SRC/tests/cli/data/sweep_small.json"
cd "$T/run"
array=$(sbatch --parsable --array=0-2 --cpus-per-task=1 --time=5 --output="$T/run/task-%a.log" \
  --export=ALL,FLOORSIM="$FS",SWEEP="$sweep" "$SRC/examples/sweeps/slurm-array.sbatch") || fail "sbatch of the array"
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterok:"$array" --time=5 --output="$T/run/merge.log" \
  --wrap "'$FS' merge out/sweep-$array/merged out/sweep-$array/shard-*") || fail "sbatch of the merge"
merge=${merge%%;*}
for _ in $(seq 120); do
  [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h -o %i)" ] || fail "jobs still queued after 60 s: $(squeue 2>&1)"
# jobcomp/filetxt: one line per finished job (every array task, then the merge), all COMPLETED.
for _ in $(seq 20); do [ "$(wc -l < "$T/jobcomp.txt" 2>/dev/null || echo 0)" -ge 4 ] && break; sleep 0.25; done
[ "$(grep -c 'JobState=COMPLETED' "$T/jobcomp.txt")" -eq 4 ] || fail "expected 3 array tasks and the merge COMPLETED: $(cat "$T/jobcomp.txt")"
grep -q "JobId=$merge .*JobState=COMPLETED" "$T/jobcomp.txt" || fail "merge job $merge did not complete"
for i in 0 1 2; do [ -s "out/sweep-$array/shard-$i/results.jsonl" ] || fail "shard $i wrote nothing"; done

"$FS" sweep "$sweep" --out "$T/local" --threads 2 -q || fail "local threaded sweep"
for f in results.jsonl results.csv sweep.json; do
  cmp -s "$T/local/$f" "out/sweep-$array/merged/$f" || fail "$f of the merged array differs from the local run"
done
echo "slurm_array: 3 array tasks on slurmctld $(slurmctld -V | awk '{print $2}') + merge (afterok) = local --threads 2 run"
