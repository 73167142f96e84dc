#!/usr/bin/env bash
# `cmake --install` into a temporary prefix gives a working floorsim: the binary runs, the man
# pages made by help2man exist for every verb and render, the licence is there, and an
# installed example validates and runs.
#   bash tests/cli/install.sh FLOORSIM   (FLOORSIM is BUILD/sim/cli/floorsim)
set -euo pipefail
FS="$1"
BUILD=$(cd "$(dirname "$FS")/../.." && pwd)
[ -f "$BUILD/CMakeCache.txt" ] || { echo "install.sh: no CMakeCache.txt in $BUILD; skipped"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

have_man=0
if grep -q '^HELP2MAN:FILEPATH=/' "$BUILD/CMakeCache.txt"; then
  have_man=1
  # The man pages are part of `all`. Building them here would relink floorsim in a partly built
  # tree while the other CLI tests run it, so a missing page is reported, not built.
  [ "$BUILD/man/floorsim.1" -nt "$FS" ] || fail "man pages older than floorsim or missing: build the whole tree (cmake --build $BUILD) first"
fi
cmake --install "$BUILD" --prefix "$T/p" > "$T/install.log" || fail "cmake --install"
P="$T/p"

"$P/bin/floorsim" --help > "$T/help" || fail "installed floorsim --help"
grep -q '^Verbs:' "$T/help" || fail "installed floorsim --help lists no verbs"
[ -f "$P/share/doc/floorsim/LICENSE" ] || fail "LICENSE not installed"
grep -q 'Apache License' "$P/share/doc/floorsim/LICENSE" || fail "LICENSE is not the Apache License"

# An installed example validates and runs from the installed tree.
EX="$P/share/floorsim/examples"
[ -f "$EX/quickstart.json" ] || fail "examples not installed under share/floorsim/examples"
"$P/bin/floorsim" validate -q "$EX/quickstart.json" || fail "installed quickstart.json does not validate"
"$P/bin/floorsim" run "$EX/quickstart.json" --out "$T/out" -q || fail "installed quickstart.json does not run"
# An installed example that replays a bundled trace finds it by its relative path.
"$P/bin/floorsim" validate -q "$EX/kth-easy.json" || fail "installed kth-easy.json does not find its bundled trace"
[ -f "$T/out/metrics.json" ] || fail "the installed example wrote no metrics.json"

if [ "$have_man" = 0 ]; then
  echo "install.sh: help2man not found at configure time; man pages not checked"
  exit 0
fi
verbs=$(awk '/^Verbs:/{f=1;next} f&&/^$/{f=0} f&&/^  [a-z]/{print $1}' "$T/help")
for page in floorsim $(for v in $verbs; do echo "floorsim-$v"; done); do
  f="$P/share/man/man1/$page.1"
  [ -f "$f" ] || fail "man page $page.1 not installed"
  # Valid troff: groff renders it without a warning, with its NAME, SYNOPSIS and (per verb) EXAMPLES.
  groff -man -Tutf8 -ww -z "$f" 2> "$T/groff.err" || fail "groff cannot render $page.1"
  [ -s "$T/groff.err" ] && { cat "$T/groff.err"; fail "groff warns on $page.1"; }
  if command -v man > /dev/null; then
    MANWIDTH=80 man -l "$f" 2> /dev/null | col -b > "$T/page" || fail "man -l $page.1"
  else
    groff -man -Tutf8 "$f" | col -b > "$T/page"
  fi
  grep -q '^NAME' "$T/page" && grep -q '^SYNOPSIS' "$T/page" || fail "$page.1 lacks NAME or SYNOPSIS"
  if [ "$page" != floorsim ]; then
    grep -q '^EXAMPLES' "$T/page" || fail "$page.1 lacks EXAMPLES"
    grep -q "floorsim ${page#floorsim-}" "$T/page" || fail "$page.1 does not show its verb"
  fi
done
echo "install.sh: binary, $(echo "$verbs" | wc -w) verb man pages + floorsim.1, LICENSE and examples installed and working"
