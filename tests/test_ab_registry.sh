#!/bin/sh
# tests/test_ab_registry.sh: bench/ab-registry.sh, the one registry through
# which bench/ab.sh times every variant in a `tilepipe bench --versus` run,
# from the top build folder, without a GPU (bench/ab.sh itself needs one:
# here it only has to parse):
# - the build's registry as base, plus two variants (one INI whose
#   libraries are relative to its own folder, one named with '+' and '-'),
#   written into another folder: every section listed ok under its name,
#   the variants' renamed NAME_VARIANT ('+' as '.'), every library
#   absolute; --name gives the same names;
# - `tilepipe bench` takes the renamed sections as --versus sides (standard
#   and blockwise_fp8, store and residual): exit 77 without a GPU, as
#   without them; on a GPU the run passes with their columns;
# - refusals, exit 2 naming the problem: two variants whose sections would
#   collide, a variant named base, a renamed section over 48 characters,
#   an INI that is not there, an argument that is not VARIANT=INI.
# Scratch files go to a fresh folder under $TMPDIR.
set -u

tool=./tools/tilepipe
reg=tilepipe.ini
build=$(pwd)
srcdir=$(cd "$(dirname "$0")/.." && pwd)
script=$srcdir/bench/ab-registry.sh
if [ ! -x "$tool" ] || [ ! -f "$reg" ]; then
  echo "test_ab_registry: run from the top build folder after make ($tool, $reg)" >&2
  exit 99
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilepipe-ab.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
unset TILEPIPE_REGISTRY TILEPIPE_PLUGIN_PATH
TILEPIPE_CACHE_DIR=$tmp/cache
export TILEPIPE_CACHE_DIR

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

bash -n "$srcdir/bench/ab.sh" || fail "bench/ab.sh does not parse"
bash -n "$script" || fail "bench/ab-registry.sh does not parse"

# Variant old: the build's plugins through an INI whose libraries are
# relative to its folder.
mkdir "$tmp/old" "$tmp/elsewhere"
ln -s "$build/plugins" "$tmp/old/plugins"
sed "s#^library = $build/#library = #" "$reg" >"$tmp/old/tilepipe.ini"
grep -q '^library = plugins/' "$tmp/old/tilepipe.ini" || fail "no relative library in the old INI"
merged=$tmp/elsewhere/ab.ini
bash "$script" "$reg" "old=$tmp/old/tilepipe.ini" "x+y-z=$reg" >"$merged" 2>"$tmp/err" ||
  fail "ab-registry: exit $?: $(cat "$tmp/err")"

"$tool" list --registry "$merged" >"$tmp/list" 2>&1 || fail "list of the merged registry failed"
sections=0
for suffix in "" _old _x.y-z; do
  for plugin in standard blockwise_fp8 block_scaled store residual; do
    grep -Eq "^$plugin$suffix +(payload|epilogue) .* ok " "$tmp/list" ||
      fail "merged registry: [$plugin$suffix] is not listed ok"
    sections=$((sections + 1))
  done
done
grep -q 'error:' "$tmp/list" && fail "merged registry: $(grep -B1 'error:' "$tmp/list")"
[ "$(grep -c '^\[' "$merged")" -eq "$sections" ] ||
  fail "merged registry: $(grep -c '^\[' "$merged") sections, expected $sections"
[ "$(grep -c '^library = /' "$merged")" -eq "$sections" ] ||
  fail "merged registry: a library is not absolute: $(grep '^library' "$merged")"
grep -q "^library = $tmp/old/plugins/standard/" "$merged" ||
  fail "merged registry: old's standard is not under its INI's folder"
for case in "standard old standard_old" "blockwise_fp8 x+y-z blockwise_fp8_x.y-z" \
  "residual a+b+c residual_a.b.c"; do
  set -- $case
  got=$(bash "$script" --name "$1" "$2")
  [ "$got" = "$3" ] || fail "--name $1 $2: '$got', expected '$3'"
done

# bench takes the renamed sections as versus sides.
for args in "--versus standard_old:store_old --versus standard_x.y-z:store_x.y-z -k 64" \
  "--epilogue residual --versus standard_old:residual_old -k 64" \
  "--payload blockwise_fp8 --versus blockwise_fp8_x.y-z:store_x.y-z -k 128"; do
  # shellcheck disable=SC2086
  "$tool" bench --registry "$merged" -m 64 -n 64 --iters 20 --warmup 1 $args >"$tmp/out" 2>&1
  status=$?
  if [ "$status" -eq 77 ]; then
    grep -q 'needs a CUDA GPU' "$tmp/out" || fail "bench $args: 77 without its reason"
  elif [ "$status" -ne 0 ] || ! grep -q '_[a-z.-]* ms speed x' "$tmp/out"; then
    fail "bench $args: exit $status"
    sed 's/^/    /' "$tmp/out" >&2
  fi
done

# expect_refusal PATTERN ARGS...: ab-registry exits 2 saying PATTERN.
expect_refusal() {
  pattern=$1
  shift
  bash "$script" "$@" >/dev/null 2>"$tmp/err"
  status=$?
  if [ "$status" -ne 2 ] || ! grep -Eq -- "$pattern" "$tmp/err"; then
    fail "ab-registry $*: exit $status, expected 2 and /$pattern/: $(cat "$tmp/err")"
  fi
}
expect_refusal "variant 'x.y' gives the section suffix '_x.y'" "$reg" "x+y=$reg" "x.y=$reg"
expect_refusal "variant 'base' gives the section suffix '_base'" "$reg" "base=$reg"
long=vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv
expect_refusal "section \[standard_$long\] is 49 characters long \(at most 48\)" "$reg" "$long=$reg"
expect_refusal "cannot read $tmp/none.ini" "$reg" "old=$tmp/none.ini"
expect_refusal "'old' is not VARIANT=INI" "$reg" old
expect_refusal "usage: " --name standard

if [ "$failures" -ne 0 ]; then
  echo "test_ab_registry: $failures failure(s)" >&2
  exit 1
fi
echo "test_ab_registry: all passed"
exit 0
