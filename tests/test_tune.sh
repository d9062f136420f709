#!/bin/sh
# tests/test_tune.sh: bench/tune.sh's bookkeeping, without a GPU. A stand-in
# for tilepipe (in a scratch build folder) records its arguments and prints
# bench table rows in tools/bench_table.c's format, each number telling
# which shape and which --versus column it came from. Checked:
# - five tunings over two shapes take two bench runs, the first with
#   --versus tune0..tune3, the second with tune4, each over both shapes;
# - every tuning's line carries its own column's ms and speed x, the ratio
#   cuBLASLt's ms over its ms, and the check of its own section (a
#   "; versus tuneI MISMATCH" note marks tuneI alone);
# - the heuristic's line comes first for each shape, once, with its own
#   check; a "" tuning reads "(no keys)";
# - the sections appended to the registry hold each tuning's lines;
# - TUNE_BACK_TO_BACK=N passes --back-to-back N to the bench, and only
#   then;
# - refusals: too few arguments, a build whose registry lacks the payload.
set -u

srcdir=$(cd "$(dirname "$0")/.." && pwd)
script=$srcdir/bench/tune.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilepipe-tune.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

bash -n "$script" || fail "bench/tune.sh does not parse"

build=$tmp/build
mkdir -p "$build/tools"
printf '[standard]\nkind = payload\nlibrary = /plugins/tp_standard.so\n' >"$build/tilepipe.ini"
# The stand-in: shape s (1-based, in the --shapes file's order) has our ms
# s, cuBLASLt's 2 s; versus column j has ms s + j / 10 and speed x 0.9 + j
# / 100. Shape 1 marks the run's second versus section MISMATCH; shape 2's
# own check is MISMATCH.
cat >"$build/tools/tilepipe" <<'EOF'
#!/bin/bash
printf '%s\n' "$*" >>"$(dirname "$0")/../calls.txt"
shapes="" registry="" versus=()
while [ $# -gt 0 ]; do
  case $1 in
  --shapes) shapes=$2; shift ;;
  --registry) registry=$2; shift ;;
  --versus) versus+=("$2"); shift ;;
  esac
  shift
done
cp "$registry" "$(dirname "$0")/../registry.ini"
s=0
while read -r m n k; do
  s=$((s + 1))
  printf '%6lld %6lld %6lld %3d %10.4f %8.1f %10.4f %8.1f %6.3f' "$m" "$n" "$k" 1 "$s" 1.0 \
    "$((2 * s))" 1.0 2.0
  for j in "${!versus[@]}"; do
    printf ' %12.4f %7.3f' "$s.$((j + 1))" "0.9$((j + 1))"
  done
  if [ "$s" -eq 1 ]; then
    printf ' %8.1f %7.1f  %s (rel 0, bound 0.0078); versus %s MISMATCH (rel 0.5, bound 0.0078)\n' \
      0.1 4.0 ok "${versus[1]:-none}"
  else
    printf ' %8.1f %7.1f  %s (rel 0.3, bound 0.0078)\n' 0.1 4.0 MISMATCH
  fi
done <"$shapes"
EOF
chmod +x "$build/tools/tilepipe"

out=$tmp/out.txt
bash "$script" "$build" bf16 "100 200 300" "7 8 9" -- "" "tile = 128x64x64" \
  "tile = 128x128x64; splits = 2" "tile = 64x64x64" "tile = 128x256x64" >"$out" 2>&1 ||
  fail "tune.sh exit $?: $(cat "$out")"

[ "$(wc -l <"$build/calls.txt")" -eq 2 ] || fail "$(wc -l <"$build/calls.txt") bench runs, expected 2"
grep -q -- '--versus tune0 --versus tune1 --versus tune2 --versus tune3$' "$build/calls.txt" ||
  fail "the first run is not tune0..tune3: $(head -n 1 "$build/calls.txt")"
tail -n 1 "$build/calls.txt" | grep -q -- '--payload standard .*--versus tune4$' ||
  fail "the second run is not tune4 alone: $(tail -n 1 "$build/calls.txt")"
[ "$(wc -l <"$out")" -eq 12 ] || fail "$(wc -l <"$out") lines, expected 12: $(cat "$out")"

# expect LINE: a line of the output reads LINE, spaces squeezed.
expect() {
  tr -s ' ' <"$out" | sed 's/^ //' | grep -qxF "$1" || fail "no line '$1' in: $(cat "$out")"
}
expect "100 200 300 heuristic 1.0000 x 1.000 ratio 2.000 ok"
expect "7 8 9 heuristic 2.0000 x 1.000 ratio 2.000 MISMATCH"
expect "100 200 300 (no keys) 1.1000 x 0.910 ratio 1.818 ok"
expect "100 200 300 tile = 128x64x64 1.2000 x 0.920 ratio 1.667 MISMATCH"
expect "100 200 300 tile = 128x128x64; splits = 2 1.3000 x 0.930 ratio 1.538 ok"
expect "7 8 9 tile = 64x64x64 2.4000 x 0.940 ratio 1.667 ok"
expect "100 200 300 tile = 128x256x64 1.1000 x 0.910 ratio 1.818 ok"
expect "7 8 9 tile = 128x256x64 2.1000 x 0.910 ratio 1.905 ok"
[ "$(grep -c heuristic "$out")" -eq 2 ] || fail "the heuristic's line is not once per shape"
head -n 1 "$out" | grep -q heuristic || fail "the heuristic's line does not come first"

reg=$build/registry.ini
grep -A4 '^\[tune2\]' "$reg" | grep -qx 'splits = 2' || fail "[tune2] lacks 'splits = 2': $(cat "$reg")"
grep -A3 '^\[tune2\]' "$reg" | grep -qx 'library = /plugins/tp_standard.so' ||
  fail "[tune2] is not over the standard library"
[ "$(grep -c '^\[tune' "$reg")" -eq 5 ] || fail "$(grep -c '^\[tune' "$reg") tune sections, expected 5"

! grep -q -- '--back-to-back' "$build/calls.txt" || fail "--back-to-back without TUNE_BACK_TO_BACK"
TUNE_BACK_TO_BACK=8 bash "$script" "$build" bf16 "100 200 300" -- "tile = 128x64x64" >"$out" 2>&1 ||
  fail "tune.sh with TUNE_BACK_TO_BACK exit $?: $(cat "$out")"
tail -n 1 "$build/calls.txt" | grep -q -- '--back-to-back 8 --versus tune0$' ||
  fail "TUNE_BACK_TO_BACK=8 not passed on: $(tail -n 1 "$build/calls.txt")"

bash "$script" "$build" bf16 >"$tmp/usage" 2>&1
[ $? -eq 2 ] && grep -q usage "$tmp/usage" || fail "too few arguments: $(cat "$tmp/usage")"
TUNE_PAYLOAD=int8_w8a8 bash "$script" "$build" s8 "1 2 3" -- >"$tmp/lib" 2>&1
[ $? -eq 2 ] && grep -q 'no tp_int8_w8a8.so' "$tmp/lib" || fail "a payload the registry lacks: $(cat "$tmp/lib")"

[ "$failures" -eq 0 ] || exit 1
echo "test_tune: PASS"
