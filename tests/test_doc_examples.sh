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
#
# Device code, a block opened with ```cuda, is an excerpt of a source file
# that the build or CI compiles (a plugin's or an example's device code, a
# public device header), named on the line before the fence:
#
#   <!-- excerpt of examples/int8_w8a8/int8_w8a8_kernel.cu -->
#
# and its lines, comments and blank lines left out and runs of blanks
# counted as one, must follow each other in that file the same way: the
# file compiles, so the excerpt does, without nvcc in this test. Any other
# fence that names C++ or CUDA is refused.
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
      } else if (fence == "cuda") {
        n++
        source = "-"
        if (match(prev, /^<!-- excerpt of [A-Za-z0-9_\/.-]+ -->$/))
          source = substr(prev, 17, length(prev) - 20)
        print n, FILENAME ":" FNR, "excerpt", source > (out "/list")
      } else if (fence ~ /^(c\+\+|cpp|cu|cxx)$/) {
        print "cxx", FILENAME ":" FNR > (out "/list")
      }
    } else {
      if (fence == "c") close(out "/ex_" n ".c")
      if (fence == "cuda") close(out "/ex_" n ".cu")
      fence = ""
    }
    prev = $0
    next
  }
  fence == "c" { print > (out "/ex_" n ".c") }
  fence == "cuda" { print > (out "/ex_" n ".cu") }
  fence == "" && /^(    |\t)/ && /tp_[a-z0-9_]+\(.*\);/ {
    print "unfenced", FILENAME ":" FNR > (out "/list")
  }
  NF { prev = $0 }
' README.md docs/*.md examples/*/README.md
cd "$build" || exit 99
touch "$tmp/list"
echo "not a registry" >"$tmp/broken.ini"

# A source's lines as the excerpt check compares them: /* */ and //
# comments out, blanks trimmed and runs of them made one, blank lines out.
normalized() {
  awk '
    {
      line = $0
      out = ""
      while (line != "") {
        if (in_comment) {
          end = index(line, "*/")
          if (end == 0) { line = ""; break }
          line = substr(line, end + 2)
          in_comment = 0
          continue
        }
        open = index(line, "/*")
        slash = index(line, "//")
        if (slash > 0 && (open == 0 || slash < open)) { out = out substr(line, 1, slash - 1); line = ""; break }
        if (open == 0) { out = out line; line = ""; break }
        out = out substr(line, 1, open - 1) " "
        line = substr(line, open + 2)
        in_comment = 1
      }
      gsub(/[ \t]+/, " ", out)
      sub(/^ /, "", out)
      sub(/ $/, "", out)
      if (out != "") print out
    }' "$1"
}

# Whether file $1's lines (normalized) hold file $2's (normalized) as a run.
holds_excerpt() {
  normalized "$1" >"$tmp/whole.txt"
  normalized "$2" >"$tmp/part.txt"
  [ -s "$tmp/part.txt" ] || return 1
  awk -v partfile="$tmp/part.txt" '
    BEGIN { while ((getline l < partfile) > 0) part[++np] = l }
    { whole[++nw] = $0 }
    END {
      for (i = 1; i + np - 1 <= nw; i++) {
        for (j = 1; j <= np && whole[i + j - 1] == part[j]; j++) {}
        if (j > np) exit 0
      }
      exit 1
    }' "$tmp/whole.txt"
}

cc_flags="$TP_TEST_CPPFLAGS $TP_TEST_CFLAGS -Werror"
compiled=0
ran=0
excerpts=0
while read -r n where wrapper source; do
  if [ "$n" = unfenced ]; then
    fail "$where: C code outside a \`\`\`c fence: fence it so that it is compiled"
    continue
  fi
  if [ "$n" = cxx ]; then
    fail "$where: device code goes in a \`\`\`cuda fence, as an excerpt of a compiled file"
    continue
  fi
  if [ "$wrapper" = excerpt ]; then
    if [ "$source" = - ]; then
      fail "$where: a \`\`\`cuda block names its source on the line before: <!-- excerpt of PATH -->"
    elif [ ! -f "$srcdir/$source" ]; then
      fail "$where: its source $source does not exist"
    elif ! holds_excerpt "$srcdir/$source" "$tmp/ex_$n.cu"; then
      fail "$where: not an excerpt of $source (its lines, less comments, in the same order)"
    else
      excerpts=$((excerpts + 1))
    fi
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

echo "test_doc_examples: $compiled examples compiled, $ran programs run, $excerpts excerpts of device code found in their sources"
# README's first GEMM is a program: none found means the extraction broke.
[ "$ran" -gt 0 ] || fail "no complete program among the examples (README.md has one)"
[ "$failures" -eq 0 ] || exit 1
exit 0
