# tests/tool_expect.sh: the helpers the shell tests of the tilepipe tool
# share, sourced first: tool_test_begin NAME sets $tool (the tool's path),
# $reg (the build's registry) and $tmp (a scratch folder, removed at
# exit), from the top build folder (exit 99 elsewhere), with no registry
# from the environment; tool_test_lsan_nvjitlink suppresses nvJitLink's own
# leak under AddressSanitizer; fail MESSAGE counts a failure in $failures
# and says it on stderr; expect STATUS PATTERN -- ARGS... runs the tool,
# checks its exit status and that its stdout+stderr (left in $tmp/out)
# match the grep -E PATTERN. A test ends by exiting 1 when $failures is
# not 0.

tool_test_begin() {
  tool=./tools/tilepipe
  reg=tilepipe.ini
  if [ ! -x "$tool" ] || [ ! -f "$reg" ]; then
    echo "$1: run from the top build folder after make ($tool, $reg)" >&2
    exit 99
  fi
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilepipe-$1.XXXXXX") || exit 99
  trap 'rm -rf "$tmp"' EXIT
  unset TILEPIPE_REGISTRY
}

# nvJitLink 13.0 leaks 24 bytes inside nvJitLinkComplete under
# AddressSanitizer (configure --enable-sanitizers) on the standard kernel's
# link, after tp_jit_link has destroyed its handle. Not ours to fix;
# everything else stays checked.
tool_test_lsan_nvjitlink() {
  printf 'leak:libnvJitLink.so\n' >"$tmp/lsan.supp"
  LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$tmp/lsan.supp"
  export LSAN_OPTIONS
}

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

expect() {
  want=$1 pattern=$2
  shift 3
  "$tool" "$@" >"$tmp/out" 2>&1
  got=$?
  if [ "$got" -ne "$want" ]; then
    fail "tilepipe $*: exit $got, expected $want"
    sed 's/^/    /' "$tmp/out" >&2
  elif ! grep -Eq -- "$pattern" "$tmp/out"; then
    fail "tilepipe $*: output lacks /$pattern/"
    sed 's/^/    /' "$tmp/out" >&2
  fi
}
