#!/usr/bin/env bash
# Replays a small workload on a real slurmctld 22.05 (Debian 12 slurm-wlm, spec §9) running on
# this machine: one slurmctld and one `slurmd -N nK` per node, auth/none, no slurmdbd, GPUs
# declared in gres.conf by Count (no devices). Jobs are `sleep`s submitted at their times.
# Writes RESULT.tsv: id, submit_s, start_s, end_s, nodes, planned_start_s (the last squeue --start
# estimate while pending; empty if none) with times from slurmctld's launch,
# plus the slurm.conf used. Wall time = the workload's makespan plus about a minute.
#
#   tests/oracle/slurm22.sh WORKLOAD.tsv RESULT.tsv [NODES] [GPUS_PER_NODE] [EXTRA_SLURM_CONF_LINES_FILE]
#
# WORKLOAD.tsv: `id submit_s nodes gpus time_limit_min runtime_s [sbatch flags]` per line
# (# comments; compare.py models only `-p PARTITION` among the flags);
# nodes 0 = one task (sbatch -n 1), so one node. Nodes are named gpu001.. as floorsim names a uniform cluster. Needs root (slurmd runs jobs as the submitting user) and slurmctld/slurmd/
# sbatch 22.05 installed (apt-get install slurmctld slurmd slurm-client). Not part of CI: the
# results are recorded under tests/oracle/recorded/ and compared by tests/oracle/compare.py.
set -euo pipefail
wl=$1 out=$2 nodes=${3:-4} gpn=${4:-8} extra=${5:-}
command -v slurmctld >/dev/null || { echo "slurm22.sh: slurmctld not installed; expected slurm-wlm 22.05" >&2; exit 2; }
ver=$(slurmctld -V | awk '{print $2}')
case $ver in 22.05.*) ;; *) echo "slurm22.sh: slurmctld $ver; expected 22.05" >&2; exit 2 ;; esac
d=$(mktemp -d /tmp/floorsim-oracle.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; sleep 1' EXIT
mkdir -p "$d/state" "$d/spool"
cat > "$d/slurm.conf" <<CONF
ClusterName=oracle
SlurmctldHost=localhost
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/ctld.pid
SlurmdPidFile=$d/spool/%n.pid
SlurmctldLogFile=$d/ctld.log
SlurmdLogFile=$d/spool/%n.log
SlurmctldDebug=info
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$d/jobcomp.txt
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
SlurmdParameters=config_overrides
ReturnToService=2
InactiveLimit=0
MinJobAge=600
KillWait=30
Waittime=0
NodeName=gpu[$(printf %03d 1)-$(printf %03d "$nodes")] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$((17000+1))-$((17000+nodes))] CPUs=$gpn Gres=gpu:$gpn RealMemory=1000 State=UNKNOWN
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
[ -n "$extra" ] && cat "$extra" >> "$d/slurm.conf"
# slurmd counts GPUs from File= entries (Count alone reports 0): plain files stand in for devices.
mkdir -p "$d/dev"
for g in $(seq 0 $((gpn - 1))); do mknod "$d/dev/nvidia$g" c 1 3; done  # like /dev/null
{ echo "AutoDetect=off"; echo "NodeName=gpu[$(printf %03d 1)-$(printf %03d "$nodes")] Name=gpu File=$d/dev/nvidia[0-$((gpn - 1))]"; } > "$d/gres.conf"
export SLURM_CONF=$d/slurm.conf
# Time 0 is slurmctld's launch, on a whole minute of the wall clock: its backfill (bf_interval)
# and periodic main (sched_interval) timers count from there, and backfill rounds to
# bf_resolution and aligns will-run windows to 30 s of epoch time; floorsim does all of it
# from its t=0.
sleep "$(awk -v n="$(date +%s.%N)" 'BEGIN{print 60-(n-60*int(n/60))}')"
first=$(date +%s)
slurmctld -D -f "$d/slurm.conf" -i >"$d/ctld.out" 2>&1 &
for k in $(seq 1 "$nodes"); do n=$(printf gpu%03d "$k"); slurmd -N "$n" -D -f "$d/slurm.conf" >"$d/slurmd-$n.out" 2>&1 & done
# Wait until every node is idle.
for _ in $(seq 1 60); do
  idle=$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l || true)
  [ "$idle" = "$nodes" ] && break
  sleep 1
done
[ "$idle" = "$nodes" ] || { echo "slurm22.sh: nodes did not come up; see $d" >&2; sinfo -N >&2 || true; trap - EXIT; exit 1; }
# Submit at the workload's times (from slurmctld's launch; start them at 10 s or later so the
# nodes have registered).
declare -A id_of
while read -r id sub nn gpus lim run rest; do
  [[ -z "$id" || "$id" == \#* ]] && continue
  now=$(date +%s.%N)
  wait_s=$(awk -v a="$first" -v s="$sub" -v n="$now" 'BEGIN{w=a+s-n; print (w>0?w:0)}')
  sleep "$wait_s"
  args=(--parsable -J "w$id" -o /dev/null -t "$lim" --requeue)
  # nodes > 0: exactly that many nodes with an even share each (floorsim's gang jobs);
  # nodes 0: one task with all its GPUs on one node (floorsim places a job whole when it can).
  if [ "$nn" -gt 0 ]; then args+=(-N "$nn" --ntasks-per-node=1 --gres="gpu:$((gpus / nn))"); else args+=(-n 1 --gres="gpu:$gpus"); fi
  sid=$(sbatch "${args[@]}" $rest --wrap "sleep $run" | cut -d';' -f1)
  id_of[$sid]=$id
done < "$wl"
# Wait for every job to complete, recording the planned start of pending jobs (squeue %S: the
# backfill's estimate) once a second; the last estimate before a job starts is kept.
declare -A plan_of
while :; do
  q=$(squeue -h -t PD -o "%i %S" 2>/dev/null || true)
  while read -r sid st; do
    [[ "$sid" =~ ^[0-9]+$ && "$st" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]+$ ]] || continue
    e=$(date -d "$st" +%s 2>/dev/null) || continue
    plan_of["$sid"]=$((e - first))
  done <<<"$q"
  [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
  sleep 1
done
sleep 2
ctld_start=$(grep -m1 -oE '^\[[0-9T:.-]+\] slurmctld version' "$d/ctld.log" | tr -d '[' | cut -d']' -f1 || true)
{
  echo "# real slurmctld $ver, $nodes nodes x $gpn GPUs; times in s from slurmctld launch"
  echo -e "id\tsubmit_s\tstart_s\tend_s\tnodes\tplanned_start_s"
  # jobcomp/filetxt: JobId=.. ... SubmitTime=.. StartTime=.. EndTime=.. NodeList=..
  while read -r line; do
    sid=$(sed -E 's/.*JobId=([0-9]+).*/\1/' <<<"$line")
    st=$(sed -E 's/.*StartTime=([^ ]+).*/\1/' <<<"$line")
    en=$(sed -E 's/.*EndTime=([^ ]+).*/\1/' <<<"$line")
    su=$(sed -E 's/.*SubmitTime=([^ ]+).*/\1/' <<<"$line")
    nl=$(sed -E 's/.*NodeList=([^ ]+).*/\1/' <<<"$line")
    rel() { echo $(( $(date -d "$1" +%s) - first )); }
    echo -e "${id_of[$sid]}\t$(rel "$su")\t$(rel "$st")\t$(rel "$en")\t$nl\t${plan_of[$sid]:-}"
  done < "$d/jobcomp.txt" | sort -n
} > "$out.tmp"
mv "$out.tmp" "$out"
cp "$d/slurm.conf" "$out.slurm.conf"
echo "slurm22.sh: wrote $out (state in $d)"
