#!/bin/sh
# tests/test_doc_examples.sh: every C example of README.md, docs/*.md and
# examples/*/README.md compiles, and every complete program among them runs
# (run by `make check` in the top build folder, with the compiler and flags
# of the build in TP_TEST_CC, TP_TEST_CPPFLAGS, TP_TEST_CFLAGS,
# TP_TEST_LDFLAGS and TP_TEST_LIBTOOL; tests/local.mk sets them).
#
# An example is a fenced block opened with ```c. One that is a whole
# translation unit compiles as it is; one that is part of a file (some
# statements, a declaration that needs others) names its surroundings in an
# HTML comment on the line before the fence:
#
#   <!-- compiled in tests/doc_examples/NAME.c -->
#
# and that file, which #includes TP_DOC_EXAMPLE where the example goes,
# compiles with it. A program (one that defines main) is linked against the
# build tree's libtilepipe and runs on the build tree's registry: it must
# exit 0; and on a broken registry it must fail cleanly: exit 1, with the
# registry's error.
# C code outside a ```c fence (an indented line calling a tp_ function) is
# refused, so that no example escapes the test. Warnings are errors.
set -u

srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(pwd)
if [ ! -f "$build/tilepipe.ini" ] || [ -z "${TP_TEST_CC:-}" ]; then
  echo "test_doc_examples: run by make check from the top build folder" >&2
  exit 99
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilepipe-docs.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The examples: $tmp/ex_N.c, and per example one line "N FILE:LINE WRAPPER"
# (WRAPPER "-" for none) in $tmp/list; a line "unfenced FILE:LINE" for C
# code outside a fence.
cd "$srcdir" || exit 99
awk -v out="$tmp" '
  FNR == 1 { fence = ""; prev = "" }
  /^```/ {
    if (fence == "") {
      fence = substr($0, 4)
      if (fence == "c") {
        n++
        wrapper = "-"
        if (match(prev, /^<!-- compiled in tests\/doc_examples\/[a-z0-9_]+\.c -->$/))
          wrapper = substr(prev, 18, length(prev) - 21)
        print n, FILENAME ":" FNR, wrapper > (out "/list")
      }
    } else {
      if (fence == "c") close(out "/ex_" n ".c")
      fence = ""
    }
    prev = $0
    next
  }
  fence == "c" { print > (out "/ex_" n ".c") }
  fence == "" && /^(    |\t)/ && /tp_[a-z0-9_]+\(.*\);/ {
    print "unfenced", FILENAME ":" FNR > (out "/list")
  }
  NF { prev = $0 }
' README.md docs/*.md examples/*/README.md
cd "$build" || exit 99
touch "$tmp/list"
echo "not a registry" >"$tmp/broken.ini"

cc_flags="$TP_TEST_CPPFLAGS $TP_TEST_CFLAGS -Werror"
compiled=0
ran=0
while read -r n where wrapper; do
  if [ "$n" = unfenced ]; then
    fail "$where: C code outside a \`\`\`c fence: fence it so that it is compiled"
    continue
  fi
  src="$tmp/ex_$n.c"
  in=""
  if [ "$wrapper" != - ]; then
    if [ ! -f "$srcdir/$wrapper" ]; then
      fail "$where: its surroundings $wrapper do not exist"
      continue
    fi
    src="$srcdir/$wrapper"
    in=" in $wrapper"
    set -- "-DTP_DOC_EXAMPLE=\"$tmp/ex_$n.c\""
  else
    set --
  fi
  # shellcheck disable=SC2086 # the flags are word lists
  if ! $TP_TEST_CC $cc_flags "$@" -c "$src" -o "$tmp/ex_$n.o" >"$tmp/cc.log" 2>&1; then
    fail "$where: does not compile$in"
    sed 's/^/    /' "$tmp/cc.log" >&2
    continue
  fi
  compiled=$((compiled + 1))
  grep -q '^int main(' "$tmp/ex_$n.c" || continue
  # shellcheck disable=SC2086
  if ! $TP_TEST_LIBTOOL --silent --tag=CC --mode=link $TP_TEST_CC $TP_TEST_CFLAGS \
      $TP_TEST_LDFLAGS -o "$tmp/ex_$n" "$tmp/ex_$n.o" core/libtilepipe.la >"$tmp/cc.log" 2>&1; then
    fail "$where: does not link"
    sed 's/^/    /' "$tmp/cc.log" >&2
    continue
  fi
  TILEPIPE_REGISTRY="$build/tilepipe.ini" "$tmp/ex_$n" >"$tmp/run.log" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ]; then
    fail "$where: exits $rc on the build tree's registry"
    sed 's/^/    /' "$tmp/run.log" >&2
  fi
  TILEPIPE_REGISTRY="$tmp/broken.ini" "$tmp/ex_$n" >"$tmp/run.log" 2>&1
  rc=$?
  if [ "$rc" -ne 1 ] || ! grep -q 'broken.ini:1: not an INI line' "$tmp/run.log"; then
    fail "$where: on a broken registry, exits $rc (expected 1, with the registry's error)"
    sed 's/^/    /' "$tmp/run.log" >&2
  fi
  ran=$((ran + 1))
done <"$tmp/list"

echo "test_doc_examples: $compiled examples compiled, $ran programs run"
# README's first GEMM is a program: none found means the extraction broke.
[ "$ran" -gt 0 ] || fail "no complete program among the examples (README.md has one)"
[ "$failures" -eq 0 ] || exit 1
exit 0
