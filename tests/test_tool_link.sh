#!/bin/sh
# tests/test_tool_link.sh: `tilepipe link`, end to end, from the top build
# folder: the fused kernels linked without a GPU and their ptxas report
# checked (what CI runs, tp_link_check in tilepipe/link.h).
#
# - usage errors (neither or both of --all and a pair; a bad --bias-dtype);
# - each shipped pair with device code links clean: PASS with the kernel's
#   name, registers and zero spills; residual links with its C; so do the
#   INI-only kernels (64-wide tile, 2-CTA cluster);
# - --all-tiles links every tile of the kernel table the pair takes, each
#   clean and a kernel of its own, and lists the tiles not taken; a payload
#   without tuning keys cannot have its tiles forced (exit 3);
# - --all over the build tree's registry: every pair with device code
#   passes, the plugins without it are listed as skipped;
# - a named plugin that is unknown, of the wrong kind, or without device
#   code is an error (exit 3), not a verdict; so is a --dtype the payload
#   refuses (REFUSED, with the plan's reason), alone and in --all;
# - a payload whose kernel fails the ptxas check (fixture_bad_link with its
#   hook fixture_test_hook: setmaxnreg ignored, C7508) prints FAIL and exits
#   1, alone and in --all; so does a pair whose hook is missing (the link
#   itself fails: unresolved tp_epilogue_apply);
# - a payload with device images (fixture_grouped_link) links only the image
#   that lists the chosen kernel, and fails one that none lists; a payload
#   whose descriptor ends before device_images (fixture_small_link) links
#   its one image.
# Built without the CUDA toolkit, the tool says so and exits 77 (skip).
# The kernel cache is off; scratch files go to a fresh folder under $TMPDIR.
set -u

# fail, expect and the prelude (tests/tool_expect.sh).
. "$(dirname "$0")/tool_expect.sh"
tool_test_begin test_tool_link
tool_test_lsan_nvjitlink
fixtures=$(pwd)/tests/plugins/.libs
TILEPIPE_CACHE_DIR=off
export TILEPIPE_CACHE_DIR


expect 0 '^Usage: tilepipe link' -- link --help
expect 2 'give --payload and --epilogue, or --all' -- link
expect 2 'give --payload and --epilogue, or --all' -- link --payload standard
expect 2 'give --payload and --epilogue, or --all' -- link --all --epilogue store
expect 2 "--bias-dtype: 'f7' is not a dtype" -- link --all --bias-dtype f7

"$tool" link --all --registry "$reg" >"$tmp/out" 2>&1
if [ $? -eq 77 ]; then
  grep -q 'built without the CUDA toolkit' "$tmp/out" || fail "exit 77 without saying why"
  echo "test_tool_link: tilepipe was built without CUDA; skipped"
  exit 77
fi

pass='PASS  kernel tp_standard_[a-z0-9_]+, [0-9]+ registers, [0-9]+ bytes stack, spills 0 bytes stored / 0 loaded'
expect 0 "^standard x store: $pass \\(C no, bias no; grid 132, [0-9]+ bytes smem, 0 bytes workspace\\)$" -- \
  link --payload standard --epilogue store
expect 0 "^standard x residual: $pass \\(C yes, bias no; grid [0-9]+, [0-9]+ bytes smem, 0 bytes workspace\\)$" -- \
  link --payload standard --epilogue residual --dtype e4m3 -m 1000 -n 2048 -k 512
# Few tiles, long K: split-K (2 x 64 tiles of 64 x 64), with its workspace
# (256 bytes of counters, one partial tile of 16 KiB per tile).
expect 0 "^standard x residual: $pass \\(C yes, bias no; grid 128, [0-9]+ bytes smem, 1048832 bytes workspace\\)$" -- \
  link --payload standard --epilogue residual -m 64 -n 4096 -k 7168
expect 0 '^target: +H100 SXM \(figures, no GPU\): 132 SMs, cc 9\.0, 232448 bytes' -- \
  link --payload standard --epilogue store

expect 0 '^([0-9]+) of \1 pairs passed$' -- link --all
expect 0 "^standard x residual: $pass" -- link --all
expect 0 '^block_scaled x residual: PASS  kernel tp_block_scaled_bf16_bf16_[a-z0-9_]+, .* spills 0 bytes stored / 0 loaded' -- link --all
expect 0 '^block_scaled x store: PASS  kernel tp_block_scaled_bf16_mx8_[a-z0-9_]+, .* spills 0 bytes stored / 0 loaded' -- \
  link --payload block_scaled --epilogue store --dtype a=bf16,b=e4m3 -m 16 -n 4096 -k 4096
expect 0 '^blockwise_fp8 x residual: PASS  kernel tp_blockwise_fp8_e4m3_[a-z0-9_]+, .* spills 0 bytes stored / 0 loaded' -- link --all

# --all-tiles: beyond the heuristic's pick, every tile of the kernel table
# the pair takes, forced one by one (tile and cluster keys), each linked
# and clean, each a kernel of its own; the tail-chunk widths no f32 D has
# are listed as not taken.
"$tool" link --payload standard --epilogue store --all-tiles -m 256 -n 256 -k 256 \
  --dtype d=f32 >"$tmp/tiles" 2>&1 || fail "link --all-tiles: exit $?: $(cat "$tmp/tiles")"
summary=$(sed -n \
  's/^standard x store: \([0-9]*\) of [0-9]* tiles taken, \([0-9]*\) linked clean, 0 failed$/\1 \2/p' \
  "$tmp/tiles")
taken=${summary% *}
clean=${summary#* }
kernels=$(sed -n 's/^  tile [0-9]*x[0-9]* c[0-9]*: PASS  kernel \(tp_standard_bf16_f32_[0-9a-z_]*\), .* spills 0 bytes stored \/ 0 loaded$/\1/p' \
  "$tmp/tiles" | sort -u | wc -l)
if [ -z "$summary" ] || [ "$taken" -lt 2 ] || [ "$clean" -ne "$taken" ] ||
  [ "$kernels" -ne "$taken" ]; then
  fail "link --all-tiles: $taken taken, $clean clean, $kernels distinct kernels: $(cat "$tmp/tiles")"
fi
grep -Eq '^  tile 128x208 c1: not taken: .*f32 D' "$tmp/tiles" ||
  fail "link --all-tiles: 128x208 is not listed as not taken for an f32 D"

expect 3 "unknown|not found|no plugin" -- link --payload standard --epilogue nosuch
expect 3 "'standard' is a payload plugin; --epilogue needs an epilogue" -- \
  link --payload standard --epilogue standard
expect 3 "^standard x store: REFUSED .*A is e2m1; standard takes" -- \
  link --payload standard --epilogue store --dtype e2m1
expect 3 "^standard x residual: REFUSED .*A is e2m1; standard takes" -- link --all --dtype e2m1

# The kernels only the INI reaches link clean too: the 64-wide tile forced,
# the 2-CTA cluster (its loader has the fewest registers to spare).
lib=$(sed -n 's/^library = \(.*tp_standard\.so\)$/\1/p' "$reg" | head -n 1)
cp "$reg" "$tmp/tuned.ini"
printf '\n[n64]\nkind = payload\nlibrary = %s\ntile = 128x64x64\n' "$lib" >>"$tmp/tuned.ini"
printf '\n[c2]\nkind = payload\nlibrary = %s\ncluster = 2x1\n' "$lib" >>"$tmp/tuned.ini"
expect 0 "^n64 x residual: $pass \\(C yes, bias no; grid 132, [0-9]+ bytes smem, 0 bytes workspace\\)$" -- \
  link --payload n64 --epilogue residual --registry "$tmp/tuned.ini"
expect 0 "^c2 x store: $pass \\(C no, bias no; grid 132, [0-9]+ bytes smem, 0 bytes workspace\\)$" -- \
  link --payload c2 --epilogue store --registry "$tmp/tuned.ini"
expect 0 "^c2 x residual: $pass" -- \
  link --payload c2 --epilogue residual --dtype e4m3 -m 300 -n 521 -k 1024 --registry "$tmp/tuned.ini"
# A section of another name over blockwise_fp8's library gets blockwise_fp8's
# problem (e4m3 and its scales): the plugin describes it.
bw=$(sed -n 's/^library = \(.*tp_blockwise_fp8\.so\)$/\1/p' "$reg" | head -n 1)
printf '\n[bw_c2]\nkind = payload\nlibrary = %s\ncluster = 2x1\n' "$bw" >>"$tmp/tuned.ini"
expect 0 "^bw_c2 x residual: PASS  kernel tp_blockwise_fp8_e4m3_bf16_128x128_c2, " -- \
  link --payload bw_c2 --epilogue residual --registry "$tmp/tuned.ini"

# Scratch registries: the build tree's plugins plus fixtures.
cp "$reg" "$tmp/nodevice.ini"
printf '\n[plain]\nkind = payload\nlibrary = %s/fixture_payload.so\n' "$fixtures" \
  >>"$tmp/nodevice.ini"
expect 3 "'plain' carries no device code" -- \
  link --payload plain --epilogue store --registry "$tmp/nodevice.ini"

if [ -f "$fixtures/fixture_bad_link.so" ] && [ -f "$fixtures/fixture_test_hook.so" ]; then
  cp "$reg" "$tmp/bad.ini"
  printf '\n[bad]\nkind = payload\nlibrary = %s/fixture_bad_link.so\n' "$fixtures" >>"$tmp/bad.ini"
  printf '\n[hook]\nkind = epilogue\nlibrary = %s/fixture_test_hook.so\n' "$fixtures" \
    >>"$tmp/bad.ini"
  expect 1 '^bad x hook: FAIL .*C7508' -- link --payload bad --epilogue hook --registry "$tmp/bad.ini"
  expect 1 "^standard x hook: FAIL .*tp_epilogue_apply" -- \
    link --payload standard --epilogue hook --registry "$tmp/bad.ini"
  expect 1 '^bad x hook: FAIL .*C7508' -- link --all --registry "$tmp/bad.ini"
  expect 1 "^standard x residual: $pass" -- link --all --registry "$tmp/bad.ini"
  expect 1 '^[0-9]+ of [0-9]+ pairs passed$' -- link --all --registry "$tmp/bad.ini"
else
  fail "fixture_bad_link.so or fixture_test_hook.so is missing from $fixtures"
fi

# A payload's device images: a link takes only the one that lists the
# chosen kernel. tp_test_ws passes from its own image alone (the other
# image's tp_test_ws_unbounded would bring ptxas's C7508 into the report);
# tp_test_ws_unbounded comes from the other; a kernel no image lists fails
# before any link. A payload whose descriptor ends before device_images
# links its one device_image.
if [ -f "$fixtures/fixture_grouped_link.so" ] && [ -f "$fixtures/fixture_small_link.so" ]; then
  cp "$reg" "$tmp/grouped.ini"
  printf '\n[grouped]\nkind = payload\nlibrary = %s/fixture_grouped_link.so\n' "$fixtures" \
    >>"$tmp/grouped.ini"
  printf '\n[small]\nkind = payload\nlibrary = %s/fixture_small_link.so\n' "$fixtures" \
    >>"$tmp/grouped.ini"
  printf '\n[hook]\nkind = epilogue\nlibrary = %s/fixture_test_hook.so\n' "$fixtures" \
    >>"$tmp/grouped.ini"
  link_grouped() { # M, then what to expect
    m=$1
    shift
    expect "$@" -- link --payload grouped --epilogue hook -m "$m" --registry "$tmp/grouped.ini"
  }
  link_grouped 128 0 '^grouped x hook: PASS  kernel tp_test_ws, '
  link_grouped 2 0 '^grouped x hook: PASS  kernel tp_test_axpy, '
  link_grouped 256 1 '^grouped x hook: FAIL .*tp_test_ws_unbounded.*C7508'
  link_grouped 1 1 "^grouped x hook: FAIL .*payload 'fixture_grouped_link' chose kernel 'tp_test_nowhere', which none of its 2 device images lists"
  expect 0 '^small x hook: PASS  kernel tp_test_ws, ' -- \
    link --payload small --epilogue hook -m 128 --registry "$tmp/grouped.ini"
  # A payload that takes no tuning keys cannot have its tiles forced.
  expect 3 "small takes no tile forced through its tuning keys" -- \
    link --payload small --epilogue hook -m 128 --all-tiles --registry "$tmp/grouped.ini"
else
  fail "fixture_grouped_link.so or fixture_small_link.so is missing from $fixtures"
fi

if [ "$failures" -ne 0 ]; then
  echo "test_tool_link: $failures failure(s)" >&2
  exit 1
fi
echo "test_tool_link: all passed"
