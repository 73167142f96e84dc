#!/usr/bin/env bash
# End to end: `floorsim fabric` writes the sign-off pack atomically, deterministically, and
# rejects bad input with exit 2 and a one-line error naming the JSON pointer.
set -euo pipefail
FLOORSIM="$1"
SRC="${FLOORSIM_SOURCE_DIR:?}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

help="$("$FLOORSIM" fabric --help)"  # captured first: grep -q on a pipe would SIGPIPE the writer
grep -q -- "--routing MODE .*(default: scenario)" <<<"$(tr -s " \n" " " <<<"$help")"
format="$("$FLOORSIM" fabric --format)"
grep -q "nvlink_domain_gpus" <<<"$format"

# Same command (the pack records it), run from two directories: same bytes. The sanitizer pass
# of .ci/run (FLOORSIM_QUICK_EXAMPLES=1) runs it once: the worst-failure search solves every
# single failure, minutes under ASan, and the Release pass has compared the bytes already.
mkdir "$TMP/1" "$TMP/2"
(cd "$TMP/1" && "$FLOORSIM" fabric "$SRC/examples/fabric/k8_quant.json" --out pack 2>/dev/null)
for f in signoff.json signoff.md flows.csv links.csv; do
  test -s "$TMP/1/pack/$f"
done
if [ "${FLOORSIM_QUICK_EXAMPLES:-0}" != 1 ]; then
  (cd "$TMP/2" && "$FLOORSIM" fabric "$SRC/examples/fabric/k8_quant.json" --out pack 2>/dev/null)
  for f in signoff.json signoff.md flows.csv links.csv; do
    cmp "$TMP/1/pack/$f" "$TMP/2/pack/$f"
  done
fi
A="$TMP/1/pack"
grep -q "## Hop counts per path class" "$A/signoff.md"
grep -q "## Degraded fabrics" "$A/signoff.md"
grep -q "## Worst single failure" "$A/signoff.md"
grep -q '"reached_full_scale": true' "$A/signoff.json"
# Provenance: the command, and the scenario named by its SHA-256.
grep -q "\"command_line\": \"floorsim fabric $SRC/examples/fabric/k8_quant.json --out pack\"" "$A/signoff.json"
grep -q "$(sha256sum "$SRC/examples/fabric/k8_quant.json" | cut -d' ' -f1)" "$A/signoff.json"
# A lost pod's flows never complete: the profile reads "never", not faster than healthy.
grep -q "| permutation, all hosts | never (" "$A/signoff.md"
# One flows.csv row per flow of every profile (plus the header).
test "$(grep -c '^"permutation, all hosts",' "$A/flows.csv")" -eq 128

# QTBS reproduction: pure max-min gives 7 s full, 9 s at tau = 4/3 (spec fabric §5).
"$FLOORSIM" fabric "$SRC/examples/fabric/qtbs_taper.json" --out "$TMP/q" 2>/dev/null
grep -q "| full (tau = 2, Leiserson) | \[1.0,1.0\] | 32 | all-to-all 1 GB | 7 |" "$TMP/q/signoff.md"
grep -q "| tapered 4/3 (tau = 4/3) | \[1.5,1.5\] | 14.22 | all-to-all 1 GB | 9 |" "$TMP/q/signoff.md"

# Routing override (the worst-failure search off: it is checked above).
sed 's/"worst_failure": {"enabled": true/"worst_failure": {"enabled": false/' "$SRC/examples/fabric/k8_quant.json" > "$TMP/nowf.json"
grep -q '"worst_failure": {"enabled": false' "$TMP/nowf.json"
"$FLOORSIM" fabric "$TMP/nowf.json" --routing split --out "$TMP/s" 2>/dev/null
grep -q '"mode": "split"' "$TMP/s/signoff.json"

# Without full_scale_hosts the pack refuses: "full scale reached" must be about the real fabric.
sed '/full_scale_hosts/d' "$SRC/examples/fabric/k8_quant.json" > "$TMP/nofull.json"
set +e
err="$("$FLOORSIM" fabric "$TMP/nofull.json" --out "$TMP/nofull" 2>&1)"
rc=$?
set -e
test "$rc" -eq 2
echo "$err" | grep -q "nofull.json:/full_scale_hosts: missing; expected the host count"
test ! -e "$TMP/nofull"

# Bad input: unknown key -> exit 2, one line with the pointer; no output directory left.
cat > "$TMP/bad.json" <<'JSON'
{"topology": {"kind": "fat_tree", "k": 4, "tiers": [{"speed": "NDR", "colour": 1}]},
 "traffic": [{"name": "p", "pattern": "permutation"}]}
JSON
set +e
err="$("$FLOORSIM" fabric "$TMP/bad.json" --out "$TMP/bad" 2>&1)"
rc=$?
set -e
test "$rc" -eq 2
echo "$err" | grep -q "bad.json:/topology/tiers/0/colour: unknown key"
test "$(echo "$err" | wc -l)" -eq 1
test ! -e "$TMP/bad"
set +e
"$FLOORSIM" fabric "$SRC/examples/fabric/k8_quant.json" --routing fastest --out "$TMP/c" 2>/dev/null
rc=$?
set -e
test "$rc" -eq 2
echo "fabric.sh: ok"
