# Sourced by the CLI tests (not a test itself: ctest registers tests/cli/*.sh only). Sets what
# every test starts with:
#   FS    the floorsim binary, the test's first argument
#   SRC   the source tree (FLOORSIM_SOURCE_DIR, set by ctest)
#   T     a private temporary directory, removed when the test exits
#   fail  prints "FAIL: message" on stderr and exits 1
#   has   `... | has [GREP-OPTION...] PATTERN`: true when stdin matches; it reads all of stdin
#         first, because `... | grep -q` under pipefail fails at random: grep -q exits at the
#         first match and the writer's next write dies of SIGPIPE (exit 141)
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { local input; input=$(cat); grep -q "$@" <<< "$input"; }
