#!/usr/bin/env bash
# Every verb's help teaches: a description, options with typed placeholders (never Boost's bare
# "arg"), kebab-case option names, two examples whose options exist; `floorsim help VERB` is the
# same text; user-facing text cites no internal issue numbers or spec sections.
#   bash tests/cli/help.sh FLOORSIM
set -euo pipefail
FS="$1"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$FS" --help > "$T/top"
"$FS" help > "$T/top2"
cmp -s "$T/top" "$T/top2" || fail "'floorsim help' differs from 'floorsim --help'"
verbs=$(awk '/^Verbs:/{f=1;next} f&&/^$/{f=0} f&&/^  [a-z]/{print $1}' "$T/top")
[ "$(echo "$verbs" | wc -w)" -ge 15 ] || fail "floorsim --help lists too few verbs: $verbs"
"$FS" help no-such-verb > /dev/null 2>&1 && fail "'floorsim help no-such-verb' exited 0"

for v in $verbs; do
  "$FS" "$v" --help > "$T/$v" || fail "$v --help exited non-zero"
  "$FS" help "$v" > "$T/$v.2"
  cmp -s "$T/$v" "$T/$v.2" || fail "'floorsim help $v' differs from '$v --help'"
  head -1 "$T/$v" | grep -q "^Usage: floorsim $v " || fail "$v --help: first line is not 'Usage: floorsim $v ...'"
  desc=$(awk 'NR>2 && /^$/{exit} NR>2' "$T/$v" | wc -w)
  [ "$desc" -ge 20 ] || fail "$v --help: the description paragraph has $desc words"
  grep -Eq '^  -h, --help' "$T/$v" || fail "$v --help lacks -h, --help"
  # Boost prints "arg" for an option with no placeholder: name it in the verb's VerbDoc.
  if grep -En '^  (-[a-z], )?--[a-z-]+ arg\b|^      --[a-z-]+ arg\b|^  arg ' "$T/$v"; then fail "$v --help: an option without a placeholder"; fi
  if grep -En -- '--[a-z]+_[a-z_]+' "$T/$v"; then fail "$v --help: an option name in snake_case (use kebab-case)"; fi
  n=$(awk '/^Examples:/{f=1;next} f&&/^$/{f=0} f' "$T/$v" | grep -c "^  floorsim $v\b" || true)
  [ "$n" -ge 2 ] || fail "$v --help has $n examples; expected 2"
  # Every option an example uses is one the verb has.
  awk '/^Examples:/{f=1;next} f&&/^$/{f=0} f' "$T/$v" | grep "^  floorsim" | grep -oE -- ' --?[a-z][a-z-]*' | sort -u |
    while read -r opt; do
      grep -qE -- "(^|[ ,])$opt( |,|$)" "$T/$v" || fail "$v --help: an example uses $opt, which the verb lacks"
    done
done

# User-facing text cites upstream documentation, never internal issue numbers or spec sections.
"$FS" lint --rules > "$T/rules"
if grep -EHn 'spec( [a-z.-]+)? §|spec [a-z-]+\.md|\bissues? [0-9]|\bsession [0-9]' "$T"/*; then fail "help or lint rules cite internal sections"; fi

# The old snake_case spelling is gone.
if "$FS" audit --run_dir x > /dev/null 2>&1; then fail "audit accepts --run_dir"; fi
echo "help.sh: $(echo "$verbs" | wc -w) verbs, each with a description, placeholders and two examples"
