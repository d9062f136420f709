#!/bin/sh
# tests/test_generated.sh: every committed file that a generator of
# tools/gen/ writes is what that generator writes now, byte for byte, so
# that a change to the generator and one to its output cannot drift apart
# (fix the generator, rerun it, commit both). Run by `make check` with the
# python3 that configure found in TP_TEST_PYTHON3 (tests/local.mk); without
# one it skips (77).
set -u
srcdir=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${TP_TEST_PYTHON3:-}" ]; then
  echo "SKIP: configure found no python3 to run tools/gen/'s generators"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilepipe-gen.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

failures=0
# generator (under tools/gen/)  output (committed, under the source tree)
while read -r gen out; do
  if ! "$TP_TEST_PYTHON3" "$srcdir/tools/gen/$gen" > "$tmp/out" 2> "$tmp/err"; then
    echo "FAIL: tools/gen/$gen failed:" >&2
    cat "$tmp/err" >&2
    failures=$((failures + 1))
  elif ! cmp -s "$tmp/out" "$srcdir/$out"; then
    echo "FAIL: $out is not what tools/gen/$gen writes; rerun it from the source root:" >&2
    echo "  python3 tools/gen/$gen > $out" >&2
    diff -u "$srcdir/$out" "$tmp/out" | head -n 40 >&2
    failures=$((failures + 1))
  else
    echo "ok: $out is what tools/gen/$gen writes"
  fi
done <<'LIST'
gen_wgmma_ops.py include/tilepipe/plugin/device/wgmma_ops.h
LIST
[ "$failures" -eq 0 ]
