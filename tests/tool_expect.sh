# tests/tool_expect.sh: the helpers the shell tests of the tilepipe tool
# share, sourced after they set $tool (the tool's path) and $tmp (their
# scratch folder): fail MESSAGE counts a failure in $failures and says it
# on stderr; expect STATUS PATTERN -- ARGS... runs the tool, checks its exit
# status and that its stdout+stderr (left in $tmp/out) match the grep -E
# PATTERN. A test ends by exiting 1 when $failures is not 0.

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
