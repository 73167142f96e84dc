#!/usr/bin/env bash
# End-to-end: count and positive-number options refuse what Boost would read silently wrong
# ("-1" into an unsigned is 4294967295, "nan" into a double): exit 2, one usage line naming the
# option and the value, before any work. Usage: bash options.sh PATH/TO/floorsim
set -u
FS=${1:?usage: options.sh PATH/TO/floorsim}
FS="$(cd "$(dirname "$FS")" && pwd)/$(basename "$FS")"  # the commands run in a scratch dir
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# refuse WANT_REGEX ARGS...: floorsim ARGS exits 2 with one stderr line matching WANT_REGEX.
refuse() {
  local want="$1"
  shift
  (cd "$TMP/w" && "$FS" "$@") >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  [ $rc -eq 2 ] || fail "floorsim $* exited $rc, expected 2; stderr: $(cat "$TMP/err")"
  [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "floorsim $*: stderr is not one line: $(cat "$TMP/err")"
  grep -Eq -- "$want" "$TMP/err" || fail "floorsim $*: stderr does not match /$want/: $(cat "$TMP/err")"
  [ -z "$(ls -A "$TMP/w")" ] || fail "floorsim $* left files behind: $(ls -A "$TMP/w")"
}

mkdir "$TMP/w"
SWF="$TMP/one.swf"
printf '1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 -1 -1 -1\n' >"$SWF"

refuse "^floorsim: sweep: --threads is '-1'; expected a whole number in \[0, 4294967295\]" sweep x.json --out o --threads -1
refuse "^floorsim: sweep: --threads is '1\.5'; expected a whole number" sweep x.json --out o -j 1.5
refuse "^floorsim: trace: --max-jobs is '-5'; expected a whole number >= 0" trace convert "$SWF" --format swf --to csv -o o.csv --max-jobs -5
refuse "^floorsim: trace: --max-jobs is '99999999999999999999'; expected" trace stats "$SWF" --format swf --max-jobs 99999999999999999999
refuse "^floorsim: trace: --gpus-per-proc is '0'; expected a whole number in \[1, 2147483647\]" trace stats "$SWF" --format swf --gpus-per-proc 0
refuse "^floorsim: calibrate: --paths is '-1'; expected a whole number >= 1" calibrate --out c.json --paths -1
refuse "^floorsim: calibrate: --paths is '0'; expected a whole number >= 1" calibrate --out c.json --paths 0
refuse "^floorsim: calibrate: --threads is '-2'; expected a whole number in \[0, 2147483647\]" calibrate --out c.json --threads -2
refuse "^floorsim: calibrate: --assets is '65'; expected a whole number in \[1, 64\]" calibrate --out c.json --assets 65
refuse "^floorsim: calibrate: --options is '-3'; expected" calibrate --out c.json --options -3
refuse "^floorsim: calibrate: --seed is '-1'; expected a whole number >= 0" calibrate --out c.json --seed -1
refuse "^floorsim: lint: --review-cadence-s is 'nan'; expected a finite number > 0" lint x.conf --review-cadence-s nan
refuse "^floorsim: lint: --review-cadence-s is '-86400'; expected a finite number > 0" lint x.conf --review-cadence-s -86400
refuse "^floorsim: lint: --max-high-priority is '-1'; expected a whole number >= 0" lint x.conf --max-high-priority -1

# The accepted forms still work: 0 threads means one per core, 0 max-jobs means all.
"$FS" trace stats "$SWF" --format swf --max-jobs 0 --gpus-per-proc 2 >/dev/null 2>&1 || fail "trace stats with valid counts"
echo "options: counts and positive numbers refused when negative, zero where not allowed, or not numbers"
