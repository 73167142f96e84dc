#!/usr/bin/env bash
# The bad-input corpus (tests/bad-input/): every file listed in manifest.tsv must make floorsim
# exit with the listed code (2) and print exactly one line on stderr that matches the listed
# extended regex, and leave nothing behind: no output file or directory, no temporary.
#   check.sh FLOORSIM              run the corpus (ctest: cli_bad_input)
#   check.sh FLOORSIM --print      print what each case gives now (to write manifest rows)
# Manifest columns (tab-separated): FILE (relative to this dir), HOW, EXIT, REGEX. HOW is
#   scenario          floorsim run FILE --out OUT
#   trace:FMT         floorsim trace convert FILE --format FMT --to csv -o OUT
#   slurm_conf | sacctmgr_dump | topology_conf | gres_conf
#                     a scenario with scheduler.type slurm naming FILE under that key, run
#   topology_conf:tree | topology_conf:block
#                     the same, with topology_plugin topology/tree or topology/block (version master)
#   kueue             a scenario with scheduler.type kueue and manifests [FILE], run
# Every file in the corpus must have a row (a case without an expectation checks nothing).
set -euo pipefail
FS="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"  # the cases run in their own dir
MODE="${2:-}"
DIR="$(cd "$(dirname "$0")" && pwd)"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
n=0

run_case() {  # run_case FILE HOW -> sets rc, err; works in a fresh dir $T/w
  local file="$DIR/$1" how="$2"
  rm -rf "$T/w" && mkdir "$T/w"
  local cluster='"cluster": {"nodes": 4, "gpus_per_node": 8, "node_prefix": "gpu"}, "workload": {"jobs": [{"runtime_s": 10, "gpus": 1}]}'
  local cmd
  case "$how" in
    scenario) cmd=(run "$file" --out "$T/w/out") ;;
    trace:*) cmd=(trace convert "$file" --format "${how#trace:}" --to csv -o "$T/w/out") ;;
    slurm_conf|sacctmgr_dump|topology_conf|gres_conf|topology_conf:tree|topology_conf:block)
      local plugin=""
      [ "$how" = topology_conf:tree ] && plugin=', "topology_plugin": "topology/tree"'
      [ "$how" = topology_conf:block ] && plugin=', "topology_plugin": "topology/block", "version": "master"'
      printf '{%s, "scheduler": {"type": "slurm", "%s": "%s"%s}}\n' "$cluster" "${how%%:*}" "$file" "$plugin" > "$T/w/scenario.json"
      cmd=(run "$T/w/scenario.json" --out "$T/w/out") ;;
    kueue)
      printf '{%s, "scheduler": {"type": "kueue", "manifests": ["%s"]}}\n' "$cluster" "$file" > "$T/w/scenario.json"
      cmd=(run "$T/w/scenario.json" --out "$T/w/out") ;;
    *) echo "FAIL: $1: unknown HOW '$how'" >&2; fail=1; return ;;
  esac
  set +e
  err=$(cd "$T/w" && timeout 60 "$FS" "${cmd[@]}" 2>&1 >/dev/null)
  rc=$?
  set -e
}

declare -A listed
while IFS=$'\t' read -r file how want re; do
  [ -z "$file" ] || [ "${file:0:1}" = "#" ] && continue
  listed[$file]=1
  n=$((n + 1))
  run_case "$file" "$how"
  if [ "$MODE" = --print ]; then
    printf '%s\t%s\t%s\t%s\n' "$file" "$how" "$rc" "$err"
    continue
  fi
  why=""
  [ "$rc" = "$want" ] || why="exit $rc, expected $want"
  [ -z "$why" ] && [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] && why="stderr is not one line"
  [ -z "$why" ] && ! printf '%s' "$err" | grep -Eq -- "$re" && why="stderr does not match /$re/"
  left=$(cd "$T/w" && ls -A | grep -v '^scenario\.json$' || true)
  [ -z "$why" ] && [ -n "$left" ] && why="left behind: $left"
  if [ -n "$why" ]; then
    echo "FAIL: $file ($how): $why; stderr: $err" >&2
    fail=1
  fi
done < "$DIR/manifest.tsv"

# Every corpus file has an expectation.
while IFS= read -r f; do
  [ -n "${listed[$f]:-}" ] || { echo "FAIL: $f has no row in manifest.tsv" >&2; fail=1; }
done < <(cd "$DIR" && find . -mindepth 2 -type f | sed 's|^\./||' | sort)
[ "$n" -ge 90 ] || { echo "FAIL: only $n cases" >&2; fail=1; }
[ "$fail" = 0 ] || exit 1
[ "$MODE" = --print ] || echo "bad-input: $n cases: exit 2, one matching line, nothing left behind"
