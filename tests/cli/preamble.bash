# Sourced by the CLI tests (not a test itself: ctest registers tests/cli/*.sh only). Sets what
# every test starts with:
#   FS    the floorsim binary, the test's first argument
#   SRC   the source tree (FLOORSIM_SOURCE_DIR, set by ctest)
#   T     a private temporary directory, removed when the test exits
#   fail  prints "FAIL: message" on stderr and exits 1
FS="$1"
SRC="${FLOORSIM_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
