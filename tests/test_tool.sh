#!/bin/sh
# tests/test_tool.sh: the `tilepipe` command-line tool, end to end, from the
# build tree (run by `make check` in the top build folder).
#
# - --help of the tool and of every subcommand;
# - `list` of the build tree's registry (tilepipe.ini: every shipped
#   plugin, ok) and of a scratch registry with a missing library (listed as
#   broken with file:line, the listing still succeeds) and a 48-char name
#   (the columns stay aligned); refused tuning keys, with the messages
#   docs/registry.md quotes; `info` of a plugin
#   and of an unknown name;
# - `run --verify` on the CPU backend for every payload x epilogue, MXFP8 and
#   NVFP4 in both scale layouts, over ragged shapes: PASS and exit 0; also
#   for a section of another name over blockwise_fp8 (its problem follows
#   the plugin);
# - a wrong result: a scratch registry whose [store] is fixture_skip_last
#   (never writes D's last element): FAIL and exit 1;
# - error exits: unknown command/option/payload, bad values, a plan the
#   payload refuses (with its reason, also where K is shorter than one
#   scale vector), a payload without a GPU kernel on the CUDA backend, a
#   missing registry, a bad shapes file (with its line: a bad size, one
#   past 2^31 - 1, a NUL byte), a dimension past 2^31 - 1, an --alpha that
#   underflows to 0 (a subnormal one runs), a FIFO registry with no writer;
#   auto on the CPU says why not CUDA;
# - bench --versus: a value that is not P or P:E and more than 4 of them
#   exit 2; a section the registry lacks, or of the other kind, exits 3
#   naming it (with or without a GPU);
# - the GPU commands: without a GPU, `bench` and `run --backend cuda` exit
#   77 saying so (run naming the backend asked for), bench after taking
#   blockwise_fp8's default dtype (e4m3) and refusing any other, and after
#   taking valid --versus sections; with one,
#   they run (bench writes a CSV row that matches, an SVG with its bars and
#   a progress line on stderr, and with --roofline measures plausible
#   ceilings and gives the floor; --back-to-back says so and records it;
#   blockwise_fp8 against cuBLASLt's blockwise FP8 gives a compared row
#   with both sides' sampled errors, and a row cuBLASLt cannot take, M not
#   a multiple of 4, "not compared" with the reason and our error alone;
#   block_scaled (W8A16, W8A8) against cuBLASLt bf16 on its operands
#   dequantized, compared, with the dequantize + cuBLASLt anchor timed;
#   --versus with the same plugins under other section names gives a
#   compared side of speed about 1, a broken section and a plan its
#   epilogue refuses give "not compared" sides with their reasons, and the
#   run still passes).
# Scratch files go to a fresh folder under $TMPDIR; nothing is written to
# the source tree.
set -u

# fail, expect and the prelude (tests/tool_expect.sh).
. "$(dirname "$0")/tool_expect.sh"
tool_test_begin test_tool
build=$(pwd)
srcdir=$(cd "$(dirname "$0")/.." && pwd)
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME


# ---------------------------------------------------------------- help
expect 0 '^Commands:' -- --help
for cmd in list info run bench; do
  expect 0 "^Usage: tilepipe $cmd" -- $cmd --help
  expect 0 '--registry PATH' -- $cmd -h
done
expect 2 "unknown command 'frobnicate'" -- frobnicate
expect 2 '^Usage: tilepipe COMMAND' --

# ---------------------------------------------------------------- list, info
for plugin in standard blockwise_fp8 block_scaled store residual; do
  expect 0 "^$plugin +(payload|epilogue) +[0-9.]+ +yes +ok " -- list --registry "$reg"
done
cat >"$tmp/broken.ini" <<EOF
[standard]
kind = payload
library = $build/plugins/standard/.libs/tp_standard.so

[ghost]
kind = payload
library = $tmp/no_such_plugin.so
EOF
expect 0 '^ghost +payload +- +yes +not found' -- list --registry "$tmp/broken.ini"
expect 0 "error: .*broken.ini:[5-7]: .*no_such_plugin" -- list --registry "$tmp/broken.ini"
expect 0 '^standard +payload .* ok ' -- list --registry "$tmp/broken.ini"
# A 48-char name (the longest a section may have) widens the name column:
# every row's KIND starts where the header's does.
long=pppppppppppppppppppppppppppppppppppppppppppppppp
printf '\n[%s]\nkind = payload\nlibrary = %s\n' "$long" \
  "$build/plugins/standard/.libs/tp_standard.so" >>"$tmp/broken.ini"
expect 0 "^$long payload " -- list --registry "$tmp/broken.ini"
"$tool" list --registry "$tmp/broken.ini" 2>&1 | awk '
  /^NAME / { want = index($0, "KIND") }
  / (payload|epilogue) / { n++; if (match($0, / (payload|epilogue) /) + 1 != want) bad++ }
  END { exit !(want > 0 && n == 3 && bad == 0) }' ||
  fail "list: the KIND column is not aligned with a 48-char name"
# Refused tuning keys, with the messages docs/registry.md quotes.
standard_section="[standard]
kind = payload
library = $build/plugins/standard/.libs/tp_standard.so"
printf '%s\nstages = 17\n' "$standard_section" >"$tmp/tuning.ini"
refused="plugin 'standard' refused stages = 17: stages '17' must be 1..16"
expect 0 "error: .*tuning.ini:4: $refused\$" -- list --registry "$tmp/tuning.ini"
grep -Fq "$refused" "$srcdir/docs/registry.md" || fail "docs/registry.md does not quote: $refused"
printf '%s\ncolour = red\n' "$standard_section" >"$tmp/tuning.ini"
unknown="plugin 'standard' has no tuning key 'colour': unknown key 'colour' (payloads take tile, stages, cluster, splits, tail_splits, stream_k)"
expect 0 "error: .*tuning.ini:4: " -- list --registry "$tmp/tuning.ini"
grep -Fq "$unknown" "$tmp/out" || fail "list: no \"$unknown\""
grep -Fq "$unknown" "$srcdir/docs/registry.md" || fail "docs/registry.md does not quote: $unknown"
# A tile no kernel of the table has is refused when the registry opens,
# naming the tiles there are (not by every plan later).
printf '%s\nstages = 4\ntile = 256x256x64\n' "$standard_section" >"$tmp/tuning.ini"
no_tile="plugin 'standard' refused tile = 256x256x64: tile '256x256x64': the GPU kernels take tiles (MxN) 128x256, 128x192, 128x208, 128x176, 128x160, 128x144, 128x128, 128x64, 64x64 or 64x48"
expect 0 "error: .*tuning.ini:5: " -- list --registry "$tmp/tuning.ini"
grep -Fq "$no_tile" "$tmp/out" || fail "list: no \"$no_tile\""
grep -Fq "$no_tile" "$srcdir/docs/registry.md" || fail "docs/registry.md does not quote: $no_tile"
expect 0 '^kind: +payload' -- info standard --registry "$reg"
expect 0 '^plugin: +blockwise_fp8$' -- info blockwise_fp8 --registry "$reg"
expect 0 '^section: +.*tilepipe.ini:[0-9]+' -- info residual --registry "$reg"
expect 0 '^state: +not found' -- info ghost --registry "$tmp/broken.ini"
expect 3 "no plugin 'nosuch'" -- info nosuch --registry "$reg"
expect 2 'which plugin' -- info --registry "$reg"
expect 3 'cannot open the registry' -- list --registry "$tmp/missing.ini"

# ---------------------------------------------------------------- run --verify
# payload | epilogue | shape | extra flags
while IFS='|' read -r payload epilogue shape extra; do
  [ -n "$payload" ] || continue
  # shellcheck disable=SC2086
  expect 0 'verify: .*: PASS$' -- run --registry "$reg" --backend cpu --verify \
    --payload "$payload" --epilogue "$epilogue" $shape $extra
done <<'EOF'
standard|store|-m 7 -n 129 -k 300|
standard|store|-m 1 -n 1 -k 1|--dtype a=f16,b=f16,d=f32
standard|store|-m 64 -n 7 -k 129|--dtype a=e4m3,b=e5m2,d=f16 --alpha -0.75
standard|residual|-m 127 -n 300 -k 64|--dtype a=bf16,b=bf16,d=bf16,c=f32 --beta -0.5
standard|residual|-m 129 -n 7 -k 7|--a-dtype e5m2 --b-dtype e5m2 --d-dtype f32 --repeat 3
blockwise_fp8|store|-m 129 -n 64 -k 300|
blockwise_fp8|residual|-m 1 -n 300 -k 129|--d-dtype f16 --alpha 1.5
block_scaled|store|-m 7 -n 129 -k 96|--sf-layout 128x4
block_scaled|residual|-m 300 -n 7 -k 64|--dtype e5m2 --sf-layout rowmajor
block_scaled|store|-m 129 -n 64 -k 128|--dtype e2m1 --sf-layout 128x4 --d-dtype f32
block_scaled|residual|-m 7 -n 127 -k 48|--dtype a=e2m1,b=e2m1,d=bf16,c=f32 --sf-layout rowmajor
EOF
expect 0 '^backend: +cpu' -- run --registry "$reg" --backend cpu -m 8 -n 8 -k 8
expect 0 'median of 3' -- run --registry "$reg" --backend cpu -m 8 -n 8 -k 8 --repeat 3
expect 0 '^plan: +standard x residual' -- run --registry "$reg" --backend cpu \
  --epilogue residual -m 8 -n 8 -k 8

# A section of another name over blockwise_fp8's library: run makes
# blockwise_fp8's problem (e4m3, its scales), since the problem follows the
# plugin, not the section's name.
cp "$reg" "$tmp/renamed.ini"
printf '\n[bw_tuned]\nkind = payload\nlibrary = %s\nstages = 3\n' \
  "$(sed -n 's/^library = \(.*tp_blockwise_fp8\.so\)$/\1/p' "$reg" | head -n 1)" >>"$tmp/renamed.ini"
expect 0 'operands: A=e4m3 B=e4m3' -- run --registry "$tmp/renamed.ini" --backend cpu \
  --payload bw_tuned -m 33 -n 130 -k 300
expect 0 'verify: .*: PASS$' -- run --registry "$tmp/renamed.ini" --backend cpu --verify \
  --payload bw_tuned --epilogue residual -m 33 -n 130 -k 300
expect 2 "--dtype: payload 'bw_tuned', problem 64x64x128 .*: A is bf16; blockwise_fp8 takes e4m3" -- \
  bench --registry "$tmp/renamed.ini" --payload bw_tuned --dtype bf16 -m 64 -n 64 -k 128

# A defective store: the tool must catch the one element it leaves unwritten.
cat >"$tmp/skip_last.ini" <<EOF
[standard]
kind = payload
library = $build/plugins/standard/.libs/tp_standard.so

[store]
kind = epilogue
library = $build/tests/plugins/.libs/fixture_skip_last.so
EOF
expect 1 'verify: .*: FAIL$' -- run --registry "$tmp/skip_last.ini" --backend cpu --verify \
  -m 9 -n 17 -k 33
expect 1 'first D\[8\]\[16\]' -- run --registry "$tmp/skip_last.ini" --backend cpu --verify \
  -m 9 -n 17 -k 33 --d-dtype f32

# ---------------------------------------------------------------- errors
r="--registry $reg"
expect 3 "no payload plugin 'nosuch'" -- run $r --payload nosuch -m 4 -n 4 -k 4
expect 3 "no epilogue plugin 'nosuch'" -- run $r --epilogue nosuch -m 4 -n 4 -k 4
expect 2 "unknown option '--bogus'" -- run $r -m 4 -n 4 -k 4 --bogus
expect 2 "unknown option '-x'" -- run $r -m 4 -n 4 -k 4 -x 3
expect 2 '-m, -n and -k are required' -- run $r -m 4 -n 4
expect 2 '-k takes an integer' -- run $r -m 4 -n 4 -k four
expect 2 '-m: 0 is outside' -- run $r -m 0 -n 4 -k 4
expect 2 '--alpha takes a finite number' -- run $r -m 4 -n 4 -k 4 --alpha nan
expect 2 '--seed needs a value' -- run $r -m 4 -n 4 -k 4 --seed
expect 2 "unknown dtype 'bf17'" -- run $r -m 4 -n 4 -k 4 --dtype a=bf17
expect 2 'operand must be a, b, c or d' -- run $r -m 4 -n 4 -k 4 --dtype x=bf16
expect 2 "operand a is given twice in 'a=bf16,a=f16'" -- run $r -m 4 -n 4 -k 4 --dtype a=bf16,a=f16
expect 2 "operand b is given twice in 'e4m3,b=e5m2'" -- run $r -m 4 -n 4 -k 4 --dtype e4m3,b=e5m2
expect 2 'store epilogue reads no C' -- run $r -m 4 -n 4 -k 4 --dtype c=f32
expect 2 "backend must be auto, cpu or cuda, not 'gpu'" -- run $r -m 4 -n 4 -k 4 --backend gpu
expect 2 'sf-layout must be' -- run $r -m 4 -n 4 -k 32 --payload block_scaled --sf-layout 4x128
expect 2 "unexpected argument 'extra'" -- run $r -m 4 -n 4 -k 4 extra
expect 3 "cannot describe the problem: payload 'standard', .*A is bf16 and B is f16" -- \
  run $r --backend cpu -m 4 -n 4 -k 4 --dtype a=bf16,b=f16
expect 3 'not a multiple of 32' -- run $r --backend cpu --payload block_scaled -m 4 -n 4 -k 33
# A problem the plan refuses fails with the plan's reason, never with one of
# making its inputs (a K shorter than one scale vector made a scale of 0).
expect 3 'cannot plan: .*K = 16 is not a multiple of 32' -- \
  run $r --payload block_scaled -m 4 -n 4 -k 16
expect 3 'cannot plan: .*K = 8 is not a multiple of 16' -- \
  run $r --payload block_scaled --dtype e2m1 -m 4 -n 4 -k 8
expect 3 'cannot describe the problem: .*B is bf16; block_scaled takes' -- \
  run $r --payload block_scaled --dtype bf16 -m 4 -n 4 -k 4
expect 3 'cannot plan: .*packed e2m1 rows must hold whole bytes' -- \
  run $r --payload block_scaled --dtype e2m1 -m 4 -n 4 -k 3
# Auto on the CPU says why not CUDA: W4A8 has no GPU kernel (where there
# is a GPU), no driver, or no toolkit.
expect 0 "^plan: +block_scaled x store on cpu: .*; auto chose the CPU: (.*A e4m3 x B e2m1 \\(NVFP4 W4A8\\) has no GPU kernel|CUDA driver|tilepipe was built without the CUDA toolkit)" -- \
  run $r --payload block_scaled --dtype a=e4m3,b=e2m1 -m 8 -n 8 -k 128
expect 3 'cannot open the registry' -- run --registry "$tmp/missing.ini" -m 4 -n 4 -k 4

printf '# M N K\n64 64 64\n12 x 5\n' >"$tmp/bad_shapes.txt"
expect 3 'bad_shapes.txt:3: expected "M N K"' -- bench --shapes "$tmp/bad_shapes.txt"
printf '# nothing\n\n' >"$tmp/empty_shapes.txt"
expect 3 'lists no shapes' -- bench --shapes "$tmp/empty_shapes.txt"
expect 3 'cannot read the shapes file' -- bench --shapes "$tmp/none.txt"
# Hostile command lines (issue 40): a subnormal --alpha is a float that
# reaches the run (D is then subnormal too, below --verify's relative
# bound, so it is not verified), one that underflows to 0 is refused; the largest
# dimension is the library's, 2^31 - 1, for the options and a shapes file
# alike; a NUL byte in a shapes file is named; a FIFO registry with no
# writer is refused within its wait (timeout: never hung on).
expect 0 'alpha=9.99995e-41 ' -- run $r --backend cpu -m 5 -n 7 -k 9 --d-dtype f32 --alpha 1e-40
expect 2 "--alpha: '1e-50' is too small for a float" -- run $r -m 4 -n 4 -k 4 --alpha 1e-50
expect 2 '-m: 2147483648 is outside 1..2147483647' -- run $r -m 2147483648 -n 4 -k 4
expect 2 '-n: 2147483648 is outside 1..2147483647' -- bench -m 4 -n 2147483648 -k 4
printf '64 64 64\n64 2147483648 64\n' >"$tmp/big_shapes.txt"
expect 3 'big_shapes.txt:2: expected "M N K", three integers in 1..2147483647$' -- \
  bench --shapes "$tmp/big_shapes.txt"
printf '64 64 64\n64\000 64 64\n' >"$tmp/nul_shapes.txt"
expect 3 'nul_shapes.txt:2: NUL byte in the line: not a text file' -- \
  bench --shapes "$tmp/nul_shapes.txt"
mkfifo "$tmp/fifo.ini" || fail "mkfifo $tmp/fifo.ini"
timeout 60 "$tool" list --registry "$tmp/fifo.ini" >"$tmp/out" 2>&1
got=$?
if [ "$got" -ne 3 ] || ! grep -q 'fifo.ini:1: a FIFO with no data for 5 s' "$tmp/out"; then
  fail "tilepipe list --registry FIFO (no writer): exit $got, expected 3 and the FIFO named"
  sed 's/^/    /' "$tmp/out" >&2
fi
expect 2 '--iters: 5 is outside 20' -- bench --iters 5 -m 64 -n 64 -k 64
expect 2 '--back-to-back: 0 is outside 1' -- bench --back-to-back 0 -m 64 -n 64 -k 64
expect 2 'either all of -m, -n and -k' -- bench -m 64 -n 64
expect 2 '--epilogue must be store or residual' -- bench --epilogue scale -m 64 -n 64 -k 64
expect 2 "--dtype: unknown dtype 'int4'" -- bench --dtype int4 -m 64 -n 64 -k 64
expect 2 "--dtype: payload 'standard', .*A is s8; standard takes bf16, f16, e4m3 or e5m2" -- \
  bench --dtype int8 -m 64 -n 64 -k 64
expect 2 "--out-dtype: bench does not compare e4m3" -- bench --out-dtype e4m3 -m 64 -n 64 -k 64
expect 2 "--dtype: .*A is bf16; blockwise_fp8 takes e4m3" -- \
  bench --payload blockwise_fp8 --dtype bf16 -m 64 -n 64 -k 128
expect 2 "--dtype: .*A is e5m2; blockwise_fp8 takes e4m3" -- \
  bench --payload blockwise_fp8 --dtype e5m2 -m 64 -n 64 -k 128

# bench --versus: checked before the GPU is looked for.
expect 0 '--versus P\[:E\]' -- bench --help
expect 3 "--versus: no payload section \[nosuch\] in .*tilepipe.ini" -- \
  bench $r --versus nosuch -m 64 -n 64 -k 64
expect 3 "--versus: no epilogue section \[nosuch\] in " -- \
  bench $r --versus standard:nosuch -m 64 -n 64 -k 64
expect 3 "--versus: section \[store\] is of kind epilogue, not payload \(.*tilepipe.ini:[0-9]+\)" -- \
  bench $r --versus store -m 64 -n 64 -k 64
expect 3 "--versus: section \[blockwise_fp8\] is of kind payload, not epilogue" -- \
  bench $r --payload blockwise_fp8 --versus blockwise_fp8:blockwise_fp8 -m 64 -n 64 -k 128
expect 2 "--versus is given more than 4 times" -- bench $r -m 64 -n 64 -k 64 \
  --versus standard --versus standard --versus standard --versus standard --versus standard
for bad in ':store' 'standard:' 'standard:store:store'; do
  expect 2 "--versus '$bad': give P or P:E" -- bench $r --versus "$bad" -m 64 -n 64 -k 64
done

# ---------------------------------------------------------------- the GPU
printf '# one small shape\n256 256 512\n' >"$tmp/shapes.txt"
"$tool" bench $r --shapes "$tmp/shapes.txt" --iters 20 --warmup 2 --roofline \
  --csv "$tmp/bench.csv" --json "$tmp/bench.json" --svg "$tmp/bench.svg" >"$tmp/out" 2>&1
status=$?
if [ "$status" -eq 77 ]; then
  grep -q 'needs a CUDA GPU' "$tmp/out" || fail "bench without a GPU: no reason given"
  [ ! -e "$tmp/bench.csv" ] && [ ! -e "$tmp/bench.svg" ] || fail "bench without a GPU wrote a file"
  expect 77 'cannot plan: plan standard x store on cuda: .*(CUDA|GPU|device)' -- \
    run $r --backend cuda -m 8 -n 8 -k 8
  expect 77 'needs a CUDA GPU' -- bench $r --payload blockwise_fp8 -m 64 -n 64 -k 128
  expect 77 'needs a CUDA GPU' -- bench $r --payload blockwise_fp8 --dtype e4m3 --out-dtype f32 \
    --epilogue residual -m 64 -n 64 -k 128
  expect 77 'needs a CUDA GPU' -- bench $r --versus standard --versus standard:residual \
    --versus standard:store --versus block_scaled -m 64 -n 64 -k 64
  expect 77 'needs a CUDA GPU' -- bench $r --payload blockwise_fp8 --epilogue residual \
    --versus blockwise_fp8 -m 64 -n 64 -k 128
  expect 0 '^plan: +standard x store on cpu: .*; auto chose the CPU: .*(CUDA|GPU|device)' -- \
    run $r -m 8 -n 8 -k 8
  echo "test_tool: no GPU here; bench and run --backend cuda skipped as expected"
elif [ "$status" -eq 0 ]; then
  [ "$(wc -l <"$tmp/bench.csv")" -eq 2 ] || fail "bench CSV should hold a header and one row"
  grep -q '^"[^"]*",[0-9]*,[0-9]*,"[^"]*",.*,256,256,512,.*,ok,' "$tmp/bench.csv" ||
    fail "bench CSV row: $(tail -n 1 "$tmp/bench.csv")"
  grep -q '"rows": \[' "$tmp/bench.json" || fail "bench JSON has no rows"
  # The picture: one ratio bar and the floors; the progress on stderr.
  grep -q '<rect class="ratio [a-z]*" data-row="0"' "$tmp/bench.svg" ||
    fail "bench SVG: no ratio bar"
  grep -q '<rect class="floor ours" data-row="0"' "$tmp/bench.svg" ||
    fail "bench SVG: no floor bar"
  grep -q '^\[1/1\] 256x256x512  ok in [0-9.]* s: inputs' "$tmp/out" ||
    fail "bench: no progress line: $(grep '^\[' "$tmp/out")"
  # --roofline: both ceilings measured, within what any Hopper can do (a
  # unit slip is a factor of 1000), and the shape's floor and bound.
  grep -q '^ceilings: memory [0-9.]* TB/s.*, arithmetic [0-9]* TFLOP/s' "$tmp/out" ||
    fail "bench --roofline: no ceilings line: $(grep '^ceilings' "$tmp/out")"
  json_value() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$tmp/bench.json" | head -n 1; }
  awk -v tb="$(json_value ceiling_tbps)" -v tf="$(json_value ceiling_tflops)" \
    -v fl="$(json_value floor_ms)" \
    'BEGIN { exit !(tb > 0.5 && tb < 20 && tf > 50 && tf < 5000 && fl > 0 && fl < 1) }' ||
    fail "bench --roofline: ceilings $(json_value ceiling_tbps) TB/s, $(json_value ceiling_tflops) TFLOP/s, floor $(json_value floor_ms) ms"
  # 256 x 256 x 512 bf16 moves 640 KiB for 67 MFLOP: bound by bytes.
  grep -q '"bound": "memory"' "$tmp/bench.json" || fail "bench --roofline: 256x256x512 not memory-bound"
  # --back-to-back: chains of 4 runs per timing, said in the header and
  # recorded in every row, the row still checked against cuBLASLt.
  expect 0 'median of 20, 4 runs of a side back to back per timing' -- bench $r -m 130 -n 256 \
    -k 512 --iters 20 --warmup 2 --back-to-back 4 --csv "$tmp/b2b.csv"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    NR == 2 { ok = $col["back_to_back"] == 4 && $col["m"] == 130 && $col["check"] == "ok" &&
              $col["tilepipe_ms"] > 0 && $col["cublaslt_ms"] > 0 }
    END { exit !(ok && NR == 2) }' "$tmp/b2b.csv" ||
    fail "bench --back-to-back CSV: $(cat "$tmp/b2b.csv")"
  expect 0 'verify: .*: PASS$' -- run $r --backend cuda --verify -m 129 -n 136 -k 200
  expect 0 'verify: .*: PASS$' -- run $r --backend cuda --verify --epilogue residual \
    --dtype a=e4m3,b=e4m3,d=bf16 -m 127 -n 64 -k 256 --repeat 5
  # blockwise_fp8 against cuBLASLt's blockwise FP8: 256 x 256 x 640
  # compared (both sides' errors on 128 x 128 sampled elements), 130 x 256
  # x 640 not compared (M is not a multiple of 4), our error alone.
  printf '256 256 640\n130 256 640\n' >"$tmp/bw_shapes.txt"
  expect 0 "^cuBLASLt's blockwise FP8: A scaled per 1x128" -- bench $r --payload blockwise_fp8 \
    --shapes "$tmp/bw_shapes.txt" --iters 20 --warmup 2 --csv "$tmp/bw.csv"
  grep -Eq '^ +256 +256 +640 .* ok \(rel ' "$tmp/out" || fail "bench blockwise: 256x256x640 not ok"
  grep -q 'M and N multiples of 4 (M = 130, N = 256)' "$tmp/out" ||
    fail "bench blockwise: 130x256x640 does not say why it is not compared"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    NR == 2 { ok = $col["check"] == "ok" && $col["tilepipe_err"] > 0 && $col["cublaslt_err"] > 0 &&
              $col["err_samples"] == 16384 }
    NR == 3 { ok = ok && $col["check"] == "not compared" && $col["tilepipe_err"] > 0 &&
              $col["cublaslt_err"] == "" && $col["err_samples"] == 16384 }
    END { exit !(ok && NR == 3) }' "$tmp/bw.csv" ||
    fail "bench blockwise CSV: $(cat "$tmp/bw.csv")"
  # block_scaled, whose scales cuBLASLt does not take: its side on A and B
  # dequantized to bf16, compared and sampled; the second anchor
  # (dequantize + cuBLASLt) timed, with its speed and geometric mean.
  for spec in a=bf16,b=e4m3 e4m3; do
    expect 0 "^cuBLASLt does not take these scales" -- bench $r --payload block_scaled \
      --dtype $spec -m 256 -n 384 -k 640 --iters 20 --warmup 2 --csv "$tmp/bs.csv"
    grep -Eq '^ +256 +384 +640 .* ok \(rel ' "$tmp/out" || fail "bench block_scaled $spec: not ok"
    grep -q '^geometric mean of speed x over dequantize + cuBLASLt bf16' "$tmp/out" ||
      fail "bench block_scaled $spec: no geometric mean over dequantize + cuBLASLt"
    sed 's/"[^"]*"/""/g' "$tmp/bs.csv" | awk -F, '
      NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
      NR == 2 { ok = $col["check"] == "ok" && $col["cublaslt_ms"] > 0 &&
                $col["dequant_cublaslt_ms"] > $col["cublaslt_ms"] && $col["dequant_speed"] > 0 &&
                $col["cublaslt_err"] > 0 && $col["err_samples"] > 0 }
      END { exit !(ok && NR == 2) }' || fail "bench block_scaled $spec CSV: $(cat "$tmp/bs.csv")"
  done
  # --versus: the build's own plugins under other names (what bench/ab.sh
  # writes for another build), a broken section, and, on a residual run,
  # the store epilogue, whose plan refuses C with beta = 1.
  sed -n '/^\[/,$p' "$reg" | sed 's/^\[\(.*\)\]$/[\1_b]/' | cat "$reg" - >"$tmp/versus.ini"
  printf '\n[ghost]\nkind = payload\nlibrary = %s/no_such_plugin.so\n' "$tmp" >>"$tmp/versus.ini"
  expect 0 '^versus standard_b x store_b: on the same inputs' -- bench --registry "$tmp/versus.ini" \
    -m 2048 -n 2048 -k 2048 --iters 20 --warmup 2 --versus standard_b:store_b --versus ghost \
    --csv "$tmp/versus.csv"
  grep -Eq '^ +2048 +2048 +2048 +[0-9]+ .*  ok \(rel [^)]*\); versus ghost not compared$' "$tmp/out" ||
    fail "bench --versus: row: $(grep -E '^ +2048 ' "$tmp/out")"
  grep -q "^       note: versus ghost: .*ghost.*unusable" "$tmp/out" ||
    fail "bench --versus: no reason for ghost: $(grep 'note:' "$tmp/out")"
  grep -q '^geometric mean of speed x (versus standard_b ms / ours' "$tmp/out" ||
    fail "bench --versus: no geometric mean of speed x"
  # Quoted fields (the plan's text has commas) emptied, then split at commas.
  sed 's/"[^"]*"/""/g' "$tmp/versus.csv" | awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    NR == 2 { ok = $col["check"] == "ok" && $col["versus1_check"] == "ok" &&
              $col["versus1_speed"] > 0.67 && $col["versus1_speed"] < 1.5 &&
              $col["versus1_rel_diff"] != "" && $col["versus1_rel_diff"] <= $col["rel_bound"] &&
              $col["versus2_check"] == "not compared" && $col["versus2_ms"] == "" }
    END { exit !(ok && NR == 2) }' ||
    fail "bench --versus CSV: $(cat "$tmp/versus.csv")"
  expect 0 'versus standard_b not compared' -- bench --registry "$tmp/versus.ini" \
    --epilogue residual -m 256 -n 256 -k 512 --iters 20 --warmup 2 \
    --versus standard_b:store_b --versus standard:residual_b
  grep -q "^       note: versus standard_b: .*C is given with beta = 1" "$tmp/out" ||
    fail "bench --versus residual: no reason from store: $(grep 'note:' "$tmp/out")"
  grep -Eq '^ +256 +256 +512 .*  ok \(rel [^)]*\); versus standard_b not compared$' "$tmp/out" ||
    fail "bench --versus residual: row: $(grep -E '^ +256 ' "$tmp/out")"
  # blockwise_fp8 against itself under another name.
  expect 0 '^versus blockwise_fp8_b x residual: ' -- bench --registry "$tmp/versus.ini" \
    --payload blockwise_fp8 --epilogue residual -m 256 -n 256 -k 640 --iters 20 --warmup 2 \
    --versus blockwise_fp8_b
  grep -Eq '^ +256 +256 +640 .*  ok \(rel [^)]*\)$' "$tmp/out" ||
    fail "bench --versus blockwise: row: $(grep -E '^ +256 ' "$tmp/out")"
  # block_scaled's W8A8 and W4A4 verified on CUDA; W4A8 has no GPU kernel,
  # and the CUDA backend says so, naming the format.
  expect 0 'verify: .*: PASS$' -- run $r --backend cuda --verify --payload block_scaled \
    --dtype a=e4m3,b=e5m2 -m 129 -n 200 -k 416
  expect 0 'verify: .*: PASS$' -- run $r --backend cuda --verify --payload block_scaled \
    --dtype e2m1 -m 129 -n 200 -k 416
  expect 3 "on cuda: payload 'block_scaled': A e4m3 x B e2m1 \\(NVFP4 W4A8\\) has no GPU kernel" -- \
    run $r --backend cuda --payload block_scaled --dtype a=e4m3,b=e2m1 -m 8 -n 8 -k 128
else
  fail "bench exited $status"
  sed 's/^/    /' "$tmp/out" >&2
fi

if [ "$failures" -ne 0 ]; then
  echo "test_tool: $failures failure(s)" >&2
  exit 1
fi
echo "test_tool: all passed"
exit 0
