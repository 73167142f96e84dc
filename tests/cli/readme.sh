#!/usr/bin/env bash
# The README's scenario-key table must equal `floorsim schema --format table`.
#   bash tests/cli/readme.sh FLOORSIM [--update]   (--update rewrites the block in README.md)
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
README="$SRC/README.md"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
{ echo '```'; "$FS" schema --format table; echo '```'; } > "$T/table"
awk '/<!-- schema-table:begin -->/{f=1;next} /<!-- schema-table:end -->/{f=0} f' "$README" > "$T/current"
if [ "${2:-}" = "--update" ]; then
  awk -v tf="$T/table" '/<!-- schema-table:begin -->/{print; while ((getline l < tf) > 0) print l; skip=1; next}
       /<!-- schema-table:end -->/{skip=0} !skip' "$README" > "$T/new" && cp "$T/new" "$README"
  echo "README.md table updated"
  exit 0
fi
if ! diff -u "$T/current" "$T/table"; then
  echo "FAIL: README.md scenario table is stale; run: bash tests/cli/readme.sh build/sim/cli/floorsim --update" >&2
  exit 1
fi
echo "readme.sh: README table matches floorsim schema --format table"
