#!/usr/bin/env bash
# Re-records tests/oracle/recorded/NAME.tsv for each workload NAME given (default: all), on the
# real slurmctld 22.05 of this machine (see slurm22.sh). NAME.conf beside a workload adds
# slurm.conf lines. About 5-7 minutes of wall time per workload; run them one at a time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(cd "$here/workloads" && ls *.tsv | sed 's/\.tsv$//'))
for n in "${names[@]}"; do
  extra=""
  [ -f "$here/workloads/$n.conf" ] && extra="$here/workloads/$n.conf"
  bash "$here/slurm22.sh" "$here/workloads/$n.tsv" "$here/recorded/$n.tsv" 4 8 $extra
done
