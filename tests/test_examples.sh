#!/bin/sh
# tests/test_examples.sh: the examples' own tests (examples/*/test_*.c), as
# a user runs them: each example copied into a scratch folder, built out of
# tree against the tilepipe installed at this build's prefix (its Makefile,
# the kit's plugin.mk; int8_w8a8 with the bias_silu just built), then its
# `make check`. Each test draws its inputs from a fixed seed, which it
# prints (<NAME>_SEED=S picks another).
#
# Run by `make check` from the top build folder. Skips (77) where no
# tilepipe of this build's version is installed at the prefix (`make
# install` first; TP_TEST_PREFIX=/other/prefix looks there instead; .ci/run
# installs into a temporary prefix and runs the examples itself), and where
# an example could not check its CUDA half (no GPU, no device code: its
# test exits 77, which its `make check` reports as SKIP). Exit 1 when an
# example fails to build or its test fails.
set -u
make_version=$(sed -n 's/^PACKAGE_VERSION = //p' Makefile 2>/dev/null)
configured=$(sed -n 's/^prefix = //p' Makefile 2>/dev/null)
if [ -z "$make_version" ] || [ -z "$configured" ]; then
  echo "test_examples: run from the top build folder after configure" >&2
  exit 99
fi
prefix=${TP_TEST_PREFIX:-$configured}
pc="$prefix/lib/pkgconfig"
installed=$(PKG_CONFIG_PATH="$pc" PKG_CONFIG_LIBDIR="$pc" pkg-config --modversion tilepipe-kit \
  2>/dev/null)
if [ "$installed" != "$make_version" ]; then
  echo "test_examples: no tilepipe $make_version installed at $prefix${installed:+ (found $installed)}" \
    "(make install first, or TP_TEST_PREFIX=/prefix): skipped"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilepipe-examples.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
skipped=0
# example_check NAME [make variables...]: builds and checks examples/NAME.
example_check() {
  name=$1
  shift
  cp -R "${srcdir:-.}/examples/$name" "$tmp/$name" || return 1
  echo "=== examples/$name"
  PKG_CONFIG_PATH="$pc" "${MAKE:-make}" -C "$tmp/$name" check "$@" >"$tmp/$name.log" 2>&1
  rc=$?
  cat "$tmp/$name.log"
  if [ "$rc" -ne 0 ]; then
    echo "FAIL: examples/$name: make check exits $rc" >&2
    return 1
  fi
  if grep -q "^$name: SKIP" "$tmp/$name.log"; then skipped=1; fi
  return 0
}
failures=0
example_check bias_silu || failures=$((failures + 1))
example_check int8_w8a8 BIAS_SILU="$tmp/bias_silu/tp_bias_silu.so" || failures=$((failures + 1))
example_check int8_w8a16 || failures=$((failures + 1))
[ "$failures" -eq 0 ] || exit 1
[ "$skipped" -eq 0 ] || exit 77
exit 0
