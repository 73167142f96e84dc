#!/usr/bin/env bash
# End-to-end: floorsim never deletes what it did not write. Every refused output path (the
# working directory, its parent, home, the scenario's folder, an input file, a trace the scenario
# reads, a run directory for audit/report, a directory of the user's) exits 2 with one line naming
# the path and leaves every file of the user's as it was (checksums before and after). An earlier
# floorsim output is replaced; --force replaces a directory of the user's. Write errors name the
# user's path and the OS reason. Runs in a temporary directory under the build tree.
set -euo pipefail
FS="$(realpath "$1")"
SRC="${FLOORSIM_SOURCE_DIR:?}"
T=$(mktemp -d "$(dirname "$FS")/out_safety.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The user's files: a study folder (scenario + the trace it reads), a directory of their own,
# a fake home, and the working directory the commands run in.
mkdir -p "$T/study/traces" "$T/mine/sub" "$T/home" "$T/work"
cp "$SRC/examples/sacct-quant.json" "$T/study/s.json"
cp "$SRC/examples/traces/quant_sacct.log" "$T/study/traces/"
echo precious > "$T/mine/thesis.tex"
echo notes > "$T/mine/sub/notes.txt"
echo rc > "$T/home/.bashrc"
echo mine > "$T/work/keep.txt"
ln -s ../study "$T/work/link"
cd "$T/work"
snap() { (cd "$T" && find study mine home work -path work/out -prune -o -print | LC_ALL=C sort |
          while read -r f; do if [ -f "$f" ] && [ ! -L "$f" ]; then echo "$(sha256sum < "$f") $f"; else echo "- $f"; fi; done); }
BEFORE=$(snap)

# refused WHAT ARGS...: exit 2, one line naming the refusal, nothing of the user's changed.
refused() {
  local what="$1"; shift
  set +e
  "$FS" "$@" > /dev/null 2> "$T/err"; local rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "$* exited $rc, expected 2 ($(cat "$T/err"))"
  [ "$(wc -l < "$T/err")" -eq 1 ] || fail "$*: expected one line, got: $(cat "$T/err")"
  grep -q -- "$what" "$T/err" || fail "$*: expected '$what' in: $(cat "$T/err")"
  ! grep -q 'tmp-' "$T/err" || fail "$*: names a temporary path: $(cat "$T/err")"
  [ "$(snap)" = "$BEFORE" ] || fail "$*: the user's files changed: $(diff <(echo "$BEFORE") <(snap) | head -5)"
}

S=../study/s.json
refused "is the working directory" run $S --out .
refused "is the working directory" run $S --out . --force
refused "contains the working directory" run $S --out ..
refused "contains the working directory" run $S --out .. --force
refused "contains the working directory" run $S --out out/../..
HOME="$T/home" refused "is the home directory" run $S --out "$T/home" --force
refused "contains the input" run $S --out ../study
refused "contains the input" run $S --out ../study --force
refused "contains the input" run $S --out link/ --force          # the folder through a symlink
refused "contains the input" run $S --out ../study/x/.. --force  # ... and through a detour
refused "is an input" run $S --out ../study/s.json --force
refused "is an input" run $S --out ../study/traces/quant_sacct.log --force  # the trace the scenario reads
refused "contains the input" run $S --out ../study/traces --force
refused "contains the input" rehearse $S --out ../study --force
refused "contains the input" impact $S --out ../study
refused "is an input" size $S --json ../study/s.json --force
refused "did not write" run $S --out ../mine
refused "did not write" rehearse $S --out ../mine
refused "did not write" sweep "$SRC/tests/cli/data/sweep_small.json" --out ../mine
refused "is an existing file" run $S --out keep.txt
refused "exists" calibrate --out keep.txt
refused "exists" trace convert ../study/traces/quant_sacct.log --format sacct --to csv -o keep.txt

# An earlier floorsim output is replaced, atomically, with no sibling left behind.
"$FS" run $S --out run1 -q || fail "first run"
[ -f run1/.floorsim-output ] && grep -q '"verb": "run"' run1/.floorsim-output || fail "no marker in run1"
"$FS" run $S --out run1 -q || fail "replacing an earlier floorsim output"
[ "$(ls -A | grep -c '^\.run1')" -eq 0 ] || fail "a temporary or set-aside sibling is left: $(ls -A)"
cmp -s <(cat run1/metrics.json) <("$FS" run $S --out run2 -q && cat run2/metrics.json) || fail "replaced output differs"
BEFORE=$(snap)

# A run directory is an input of audit, report and size: never replaced, nothing written in it.
refused "is an input" audit run1 --out run1 --scenario $S --force
refused "lies inside the input directory" audit run1 --out run1/pack --scenario $S --force
refused "lies inside the input directory" report run1 -o run1/metrics.json --force
refused "lies inside the input directory" report run1 -o run1/report.html
refused "is an input" size run1 --base-dir ../study --json run1 --force
refused "is an input" merge run1 run1 --force
"$FS" audit run1 --out pack --scenario $S > /dev/null || fail "audit into a new directory"
"$FS" audit run1 --out pack --scenario $S > /dev/null || fail "audit replacing its own pack"

# trace convert a.swf -o a.swf; single files need --force to be replaced.
"$FS" trace convert ../study/traces/quant_sacct.log --format sacct --to swf -o a.swf 2> /dev/null || fail "convert"
BEFORE=$(snap)
refused "is an input" trace convert a.swf --format swf --to swf -o a.swf --force
refused "is an input" trace convert a.swf --format swf --to swf -o ./x/../a.swf --force
"$FS" report run1 -o r.html 2> /dev/null || fail "report"
BEFORE=$(snap)
refused "exists" report run1 -o r.html
refused "is a directory" report run1 -o run2 --force
"$FS" report run1 -o r.html --force 2> /dev/null || fail "report --force over its own earlier file"

# /dev/stdout redirected to a file is written through (appended), not refused or replaced.
echo "first line" > stdout.swf
"$FS" trace convert a.swf --format swf --to swf -o /dev/stdout >> stdout.swf 2> /dev/null || fail "-o /dev/stdout into a file"
"$FS" trace convert a.swf --format swf --to swf -o b.swf 2> /dev/null || fail "convert to b.swf"
cmp -s <(echo "first line"; cat b.swf) stdout.swf || fail "-o /dev/stdout >> file: not the conversion appended"

# --force replaces a directory of the user's (and only with --force).
cp -r ../mine forced
set +e
"$FS" run $S --out forced -q 2> /dev/null; rc=$?
set -e
[ "$rc" -eq 2 ] && [ -f forced/thesis.tex ] || fail "forced/ replaced without --force"
"$FS" run $S --out forced -q --force || fail "--force on a directory of the user's"
[ ! -e forced/thesis.tex ] && [ -f forced/metrics.json ] && [ -f forced/.floorsim-output ] || fail "--force did not replace forced/"

# Write errors name the user's path and the OS reason, never a temporary path.
BEFORE=$(snap)
if [ -w /dev/full ]; then
  refused "cannot write /dev/full: No space left on device" report run1 -o /dev/full
fi
refused "keep.txt/out" run $S --out keep.txt/out
refused "No such file or directory" report run1 -o no/such/r.html

# An empty directory (made by a job script, say) is filled.
mkdir empty
"$FS" run $S --out empty -q || fail "an empty directory as --out"
[ -f empty/metrics.json ] || fail "empty/ not filled"
echo "out_safety: ok"
