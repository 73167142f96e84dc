#!/usr/bin/env bash
# The docs stay true: docs/scenario.md's key table equals `floorsim schema --format table`,
# every relative link in README.md and docs/ resolves, and no user-facing page cites internal
# issue numbers, sessions or spec sections.
#   bash tests/cli/docs.sh FLOORSIM [--update]   (--update rewrites the table in docs/scenario.md)
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
PAGE="$SRC/docs/scenario.md"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

{ echo '```'; "$FS" schema --format table; echo '```'; } > "$T/table"
if [ "${2:-}" = "--update" ]; then
  awk -v tf="$T/table" '/<!-- schema-table:begin -->/{print; while ((getline l < tf) > 0) print l; skip=1; next}
       /<!-- schema-table:end -->/{skip=0} !skip' "$PAGE" > "$T/new" && cp "$T/new" "$PAGE"
  echo "docs/scenario.md table updated"
  exit 0
fi
grep -q '<!-- schema-table:begin -->' "$PAGE" || fail "docs/scenario.md has no schema-table markers"
awk '/<!-- schema-table:begin -->/{f=1;next} /<!-- schema-table:end -->/{f=0} f' "$PAGE" > "$T/current"
if ! diff -u "$T/current" "$T/table"; then
  fail "docs/scenario.md scenario table is stale; run: bash tests/cli/docs.sh build/sim/cli/floorsim --update"
fi

# Relative links ([text](path) and [text](path#anchor)) resolve from the page that has them.
# Every Markdown page a user reads: README.md, docs/, and the READMEs beside the code and examples.
pages=$(cd "$SRC" && find . -name '*.md' -not -path './build*' -not -path './.git/*' -not -path './tests/*' | sed 's|^\./||' | sort)
[ "$(echo "$pages" | grep -c '^docs/')" -ge 11 ] || fail "expected at least 11 pages under docs/"
for p in $pages; do
  dir=$(dirname "$SRC/$p")
  { grep -oE '\]\([^)#[:space:]]+(#[^)]*)?\)' "$SRC/$p" || true; } | sed -E 's/^\]\(//; s/\)$//; s/#.*//' |
    { grep -vE '^(https?|mailto):' || true; } | while read -r link; do
      [ -z "$link" ] && continue
      [ -e "$dir/$link" ] || fail "$p links to $link, which does not exist"
    done
done

# Cite upstream docs, not internal bookkeeping.
if (cd "$SRC" && grep -nE 'spec( [a-z.-]+)? §|spec [a-z-]+\.md|\.\./shared|\bissues? [0-9]|\bsession [0-9]|DESIGN\.md' $pages); then
  fail "user-facing pages cite internal issues, sessions or spec sections (cite the upstream docs)"
fi
echo "docs.sh: scenario table in sync, links resolve, $(echo "$pages" | wc -l) pages clean"
