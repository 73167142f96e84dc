#!/usr/bin/env bash
# Re-records tests/fabric/simgrid/NAME.csv, the SimGrid figures test_fabric's SimGrid
# conformance cases must reproduce, for each case NAME given (default: all). Needs SimGrid 3.32
# built in $SIMGRID_BUILD (default /tmp/simgrid-build) from its source in $SIMGRID_SRC (default
# /tmp/simgrid-src); see README.md. Seconds of wall time in all.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../fabric/simgrid"
sgb=${SIMGRID_BUILD:-/tmp/simgrid-build}
sgs=${SIMGRID_SRC:-/tmp/simgrid-src}
bin=${TMPDIR:-/tmp}/fattree_flows
g++ -std=c++17 -O2 -o "$bin" "$here/fattree_flows.cpp" -I"$sgs/include" -I"$sgb/include" -L"$sgb/lib" \
  -Wl,-rpath,"$sgb/lib" -lsimgrid
commit=$(git -C "$sgs" rev-parse HEAD 2>/dev/null || echo unknown)
cfg=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0 --log=root.thres:critical)

k4="3;2,2,4;1,2,2;1,1,1"
k8="3;4,4,8;1,4,4;1,1,1"
# name | topology | tier bandwidths (B/s, tier 0 first) | gen_flows.py arguments
cases=(
  "k4_permutation|$k4|1.25e9|16 perm 1 --sizes=varied"
  "k4_permutation_staggered|$k4|1.25e9|16 perm 2 --sizes=varied --stagger"
  "k4_shift|$k4|1.25e9|16 shift 5 --sizes=varied --stagger"
  "k4_alltoall|$k4|1.25e9|16 alltoall --sizes=varied"
  "k4_incast|$k4|1.25e9|16 incast 0 --sizes=varied --stagger"
  "k4_tapered|$k4|1.25e9,6.25e8,3.125e8|16 perm 3 --sizes=varied --stagger"
  "k8_permutation|$k8|1.25e9|128 perm 4 --sizes=varied --stagger"
  "k8_shift|$k8|1.25e9|128 shift 17 --sizes=varied"
  "leafspine_p2_alltoall|2;4,4;1,2;1,2|1.25e9|16 alltoall --sizes=varied"
  "k4_p2_top|3;2,2,4;1,2,2;1,1,2|1.25e9|16 perm 6 --sizes=varied --stagger"
  "k4_p2_middle|3;2,2,4;1,2,2;1,2,1|1.25e9|16 perm 7 --sizes=varied --stagger"
)
want=("$@")
for c in "${cases[@]}"; do
  IFS='|' read -r name topo bw gen <<<"$c"
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " == *" $name "* ]]; then continue; fi
  flows=$(mktemp)
  # shellcheck disable=SC2086
  python3 "$here/gen_flows.py" $gen >"$flows"
  {
    echo "# Recorded by tests/oracle/simgrid/record.sh: fattree_flows.cpp on SimGrid commit $commit"
    echo "# ${cfg[*]:0:3}; flows: gen_flows.py $gen"
    "$bin" "$topo" "$bw" "$flows" "${cfg[@]}"
  } >"$out/$name.csv"
  rm -f "$flows"
  echo "$name: $(grep -c '^[0-9]' "$out/$name.csv") flows"
done
