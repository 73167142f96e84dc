#!/usr/bin/env bash
# The README tells the truth: every command block marked <!-- readme-check --> is run (from a
# scratch directory that sees the repository's examples/) and its output must equal the block
# that follows it; the set-up and test commands it gives exist; its verbs table lists exactly
# the verbs `floorsim --help` lists.
#   bash tests/cli/readme.sh FLOORSIM
set -euo pipefail
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
README="$SRC/README.md"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Split the README into numbered pairs: T/cmd.N (the sh block after a marker), T/out.N (the next block).
awk -v dir="$T" '
  /^<!-- readme-check -->$/ { want = "cmd"; n++; next }
  want != "" && /^```/ && !inblock { inblock = 1; file = dir "/" want "." n; printf "" > file; next }
  inblock && /^```$/ { inblock = 0; close(file); want = (want == "cmd") ? "out" : ""; next }
  inblock { print > file }
' "$README"
n=$(ls "$T"/cmd.* 2> /dev/null | wc -l)
[ "$n" -ge 5 ] || fail "README.md has $n checked command blocks; expected the tour's five"

# Rates (N/s) depend on the machine and report sizes on the commit they name; everything else
# must match byte for byte.
normalise() { sed -E 's#[0-9][0-9.e+]*/s#N/s#g; s#\([0-9]+ bytes\)#(N bytes)#g'; }
mkdir "$T/work"
ln -s "$SRC/examples" "$T/work/examples"
for i in $(seq 1 "$n"); do
  [ -f "$T/out.$i" ] || fail "README.md checked block $i has no output block after it"
  sed "s#\./build/sim/cli/floorsim#$FS#g" "$T/cmd.$i" > "$T/run.$i.sh"
  (cd "$T/work" && bash -e "$T/run.$i.sh") > "$T/got.$i" 2>&1 || true
  if ! diff -u <(normalise < "$T/out.$i") <(normalise < "$T/got.$i"); then
    fail "README.md block $i ($(head -1 "$T/cmd.$i")) prints something else now; update the README"
  fi
done

# The set-up, run and test commands it gives are the ones that exist.
for c in 'bash .ci/setup' './build/sim/cli/floorsim rehearse --out out/rehearse' 'ctest --test-dir build --output-on-failure -j2' \
         'cmake --install build'; do
  grep -qF "$c" "$README" || fail "README.md lacks '$c'"
done
[ -x "$SRC/.ci/setup" ] || [ -f "$SRC/.ci/setup" ] || fail ".ci/setup is missing"

# The verbs table: exactly the verbs of `floorsim --help`, in any order.
"$FS" --help | awk '/^Verbs:/{f=1;next} f&&/^$/{f=0} f&&/^  [a-z]/{print $1}' | sort > "$T/verbs.bin"
awk '/^## Verbs/{f=1;next} /^## /{f=0} f && /^\| `/{sub(/^\| `/, ""); sub(/[ `].*/, ""); print}' "$README" | sort > "$T/verbs.readme"
diff -u "$T/verbs.bin" "$T/verbs.readme" || fail "README.md's verbs table differs from 'floorsim --help'"
echo "readme.sh: $n README command blocks give the outputs shown; verbs table complete"
