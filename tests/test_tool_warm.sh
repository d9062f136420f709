#!/bin/sh
# tests/test_tool_warm.sh: `tilepipe warm`, end to end, from the top build
# folder, without a GPU (tp_cache_warm in tilepipe/warm.h):
# - usage errors: a missing option, an unknown --gpu model, --jobs out of
#   range; no --gpu where there is no GPU to plan for;
# - errors: a shapes file that is missing or bad, a shape the pair refuses
#   (its line named), an unknown plugin;
# - standard x store over three shapes, two of one kernel: two kernels
#   linked by two worker processes into a fresh cache folder; warmed again,
#   both cached, and no nvJitLink opened ($TILEPIPE_NVJITLINK names no file);
#   `tilepipe link` of one shape then reads the warmed entry the same way
#   (the warm planned what the link check, for the same H100 figures, plans);
# - a kernel that fails the ptxas check (fixture_bad_link): FAIL, exit 1.
# Built without the CUDA toolkit, the tool says so and exits 77 (skip).
# Scratch files go to a fresh folder under $TMPDIR.
set -u

# fail, expect and the prelude (tests/tool_expect.sh).
. "$(dirname "$0")/tool_expect.sh"
tool_test_begin test_tool_warm
tool_test_lsan_nvjitlink
unset TILEPIPE_NVJITLINK
fixtures=$(pwd)/tests/plugins/.libs
TILEPIPE_CACHE_DIR=$tmp/cache
export TILEPIPE_CACHE_DIR


printf '# two shapes of one kernel, one of another\n64 4096 7168\n\n64 4096 7168\n128 256 64\n' \
  >"$tmp/shapes.txt"
printf '64 4096\n' >"$tmp/bad_shapes.txt"

expect 0 '^Usage: tilepipe warm' -- warm --help
expect 2 'give --payload, --epilogue and --shapes' -- warm --payload standard --epilogue store
expect 2 "--gpu: .*no GPU model 'a100' \\(known: h100-sxm, h100-pcie, h200\\)" -- \
  warm --payload standard --epilogue store --shapes "$tmp/shapes.txt" --gpu a100
expect 2 '--jobs' -- warm --payload standard --epilogue store --shapes "$tmp/shapes.txt" \
  --gpu h100-sxm --jobs -1

"$tool" warm --payload standard --epilogue store --shapes "$tmp/shapes.txt" --gpu h100-sxm \
  >"$tmp/out" 2>&1
if [ $? -eq 77 ]; then
  grep -q 'built without the CUDA toolkit' "$tmp/out" || fail "exit 77 without saying why"
  echo "test_tool_warm: tilepipe was built without CUDA; skipped"
  exit 77
fi
rm -rf "$TILEPIPE_CACHE_DIR"

# Without --gpu the target is the GPU here: where there is none, the tool
# asks for --gpu (exit 2) before it reads the shapes (exit 3 on a GPU).
"$tool" warm --payload standard --epilogue store --shapes "$tmp/none.txt" >"$tmp/out" 2>&1
case $? in
2) grep -Eq 'no GPU here to plan for .*name the GPU the plans are for with --gpu' "$tmp/out" ||
     fail "no --gpu without a GPU: $(cat "$tmp/out")" ;;
3) ;;
*) fail "no --gpu: unexpected exit: $(cat "$tmp/out")" ;;
esac
expect 3 "$tmp/none.txt" -- warm --payload standard --epilogue store --shapes "$tmp/none.txt" \
  --gpu h100-sxm
expect 3 "bad_shapes.txt:1" -- warm --payload standard --epilogue store \
  --shapes "$tmp/bad_shapes.txt" --gpu h100-sxm
expect 3 'problem 0 \(64 x 4096 x 7168\): .*A is bf16 and B is f16' -- warm --payload standard \
  --epilogue store --shapes "$tmp/shapes.txt" --gpu h100-sxm --dtype a=bf16,b=f16
expect 3 'nosuch' -- warm --payload standard --epilogue nosuch --shapes "$tmp/shapes.txt" \
  --gpu h100-sxm
[ -d "$TILEPIPE_CACHE_DIR" ] && [ -n "$(ls "$TILEPIPE_CACHE_DIR")" ] &&
  fail "a refused warm wrote to the cache"

# Two kernels, two worker processes; then both cached, nvJitLink unopened.
expect 0 '^3 shapes, 2 kernels: 2 linked, 0 cached, 0 failed in [0-9.]+ s \(2 worker processes\)$' \
  -- warm --payload standard --epilogue store --shapes "$tmp/shapes.txt" --gpu h100-sxm --jobs 2
grep -Eq '^linked +tp_standard_bf16_bf16_64x64_c1 +[0-9.]+ s$' "$tmp/out" ||
  fail "the first warm did not link tp_standard_bf16_bf16_64x64_c1"
expect 0 '^cached +tp_standard_bf16_bf16_64x64_c1 +[0-9.]+ s$' -- \
  warm --payload standard --epilogue store --shapes "$tmp/shapes.txt" --gpu h100-sxm --jobs 2
[ "$(ls "$TILEPIPE_CACHE_DIR" | grep -c '\.tpk$')" -eq 2 ] || fail "not two cache entries"
TILEPIPE_NVJITLINK=/nonexistent/libnvJitLink.so expect 0 \
  '^3 shapes, 2 kernels: 0 linked, 2 cached, 0 failed .*\(in this process\)$' -- \
  warm --payload standard --epilogue store --shapes "$tmp/shapes.txt" --gpu h100-sxm
TILEPIPE_NVJITLINK=/nonexistent/libnvJitLink.so expect 0 \
  '^standard x store: PASS  kernel tp_standard_bf16_bf16_64x64_c1' -- \
  link --payload standard --epilogue store -m 64 -n 4096 -k 7168

if [ -f "$fixtures/fixture_bad_link.so" ] && [ -f "$fixtures/fixture_test_hook.so" ]; then
  cp "$reg" "$tmp/bad.ini"
  printf '\n[bad]\nkind = payload\nlibrary = %s/fixture_bad_link.so\n' "$fixtures" >>"$tmp/bad.ini"
  printf '\n[hook]\nkind = epilogue\nlibrary = %s/fixture_test_hook.so\n' "$fixtures" \
    >>"$tmp/bad.ini"
  expect 1 '^FAIL +tp_test_ws_unbounded .*C7508' -- warm --payload bad --epilogue hook \
    --shapes "$tmp/shapes.txt" --gpu h100-sxm --registry "$tmp/bad.ini"
  grep -Eq '^3 shapes, 1 kernel: 0 linked, 0 cached, 1 failed' "$tmp/out" || fail "no summary of the failure"
else
  fail "fixture_bad_link.so or fixture_test_hook.so is missing from $fixtures"
fi

if [ "$failures" -ne 0 ]; then
  echo "test_tool_warm: $failures failure(s)" >&2
  exit 1
fi
echo "test_tool_warm: all passed"
