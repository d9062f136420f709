#!/bin/sh
# tests/test_tool_bench_cpu.sh: `tilepipe bench --backend cpu`, end to end,
# from the top build folder (no GPU needed):
# - usage errors: an unknown --backend, the GPU's options (--versus,
#   --roofline, --svg, --back-to-back, --epilogue residual) refused on the
#   CPU, an unknown dtype, a dtype the payload refuses;
# - errors: a shapes file that is missing or bad (its line named), a shape
#   the payload refuses (its row "error", the reason under it, exit 3);
# - every payload on ragged tiny shapes, against the BLAS found here (rows
#   "ok", within the bound) or, where there is none, ours alone ("not
#   compared"); with $TILEPIPE_CPU_BLAS naming a missing library, or one
#   without an sgemm, ours alone, saying why; the CSV holds one record per
#   shape, the CPU's model first.
# Scratch files go to a fresh folder under $TMPDIR.
set -u

# fail, expect and the prelude (tests/tool_expect.sh).
. "$(dirname "$0")/tool_expect.sh"
tool_test_begin test_tool_bench_cpu
unset TILEPIPE_CPU_BLAS
# One BLAS thread: the shapes are tiny, and the run stays the same under
# the sanitizers.
OPENBLAS_NUM_THREADS=1
export OPENBLAS_NUM_THREADS


# rows_are WORD COUNT: the last output has COUNT table rows, each checked WORD.
rows_are() {
  rows=$(grep -Ec '^ +[0-9]+ +[0-9]+ +[0-9]+ ' "$tmp/out")
  words=$(grep -Ec "^ +[0-9]+ +[0-9]+ +[0-9]+ .*  $1( |\$)" "$tmp/out")
  if [ "$rows" -ne "$2" ] || [ "$words" -ne "$2" ]; then
    fail "expected $2 rows checked '$1', got $rows rows, $words of them '$1'"
    sed 's/^/    /' "$tmp/out" >&2
  fi
}

# Ragged sizes around the CPU's panels (8 rows of A, 32 of B) and K blocks.
printf '# tiny\n1 7 32\n17 65 96\n\n33 40 256\n' >"$tmp/shapes.txt"
printf '4 4 4\n64 4096\n' >"$tmp/bad_shapes.txt"
printf '8 8 15\n' >"$tmp/odd_k.txt"
cpu="--backend cpu --warmup 1 --iters 20"

expect 0 '--backend B' -- bench --help
expect 2 "--backend must be cuda or cpu, not 'tpu'" -- bench --backend tpu -m 8 -n 8 -k 8
for gpu_only in "--versus standard" "--roofline" "--svg $tmp/x.svg" "--back-to-back 2" \
  "--epilogue residual"; do
  # shellcheck disable=SC2086
  expect 2 "${gpu_only%% *}.* is not for --backend cpu" -- bench $cpu $gpu_only -m 8 -n 8 -k 8
done
expect 2 "--dtype: unknown dtype 'int4'" -- bench $cpu --dtype int4 -m 8 -n 8 -k 8
expect 2 '--dtype: ' -- bench $cpu --payload blockwise_fp8 --dtype bf16 -m 8 -n 8 -k 128
expect 3 'bad_shapes.txt:2: expected "M N K"' -- bench $cpu --shapes "$tmp/bad_shapes.txt"
expect 3 'cannot read the shapes file' -- bench $cpu --shapes "$tmp/none.txt"
expect 3 'K = 15 is not a multiple of 32' -- bench $cpu --payload block_scaled \
  --shapes "$tmp/odd_k.txt"
rows_are error 1

# The BLAS found here, if any, decides what a good row says.
"$tool" bench $cpu -m 8 -n 8 -k 8 >"$tmp/out" 2>&1
model=$(sed -n 's/^CPU \([^,]*\),.*/\1/p' "$tmp/out" | head -n 1)
[ -n "$model" ] || fail "no CPU model in the header"
if grep -q '^BLAS: not available' "$tmp/out"; then
  good="not compared"
  echo "test_tool_bench_cpu: no BLAS here; our side alone"
else
  good=ok
  grep -Eq '^CPU .*, BLAS lib.*\((cblas_sgemm|sgemm_)\)' "$tmp/out" || fail "no BLAS named"
fi

for payload in "standard" "standard --dtype e4m3" "standard --dtype f16 --out-dtype f32" \
  "blockwise_fp8" "block_scaled" "block_scaled --dtype a=bf16,b=e2m1"; do
  # shellcheck disable=SC2086
  expect 0 "^geometric mean|^BLAS: not available" -- bench $cpu --payload $payload \
    --shapes "$tmp/shapes.txt" --csv "$tmp/out.csv"
  rows_are "$good" 3
  records=$(($(wc -l <"$tmp/out.csv") - 1))
  [ "$records" -eq 3 ] || fail "bench --payload $payload: $records CSV records, expected 3"
  sed -n 2p "$tmp/out.csv" | grep -q "^\"\?$model" || fail "the CSV's first field is not the CPU"
done

TILEPIPE_CPU_BLAS=$tmp/libnone.so
export TILEPIPE_CPU_BLAS
expect 0 'BLAS: not available \(no BLAS sgemm \(.*libnone.so' -- \
  bench $cpu --shapes "$tmp/shapes.txt"
rows_are "not compared" 3
TILEPIPE_CPU_BLAS=libc.so.6
expect 0 'libc.so.6: neither cblas_sgemm nor sgemm_' -- bench $cpu -m 8 -n 8 -k 8
rows_are "not compared" 1
unset TILEPIPE_CPU_BLAS

if [ "$failures" -ne 0 ]; then
  echo "test_tool_bench_cpu: $failures failure(s)" >&2
  exit 1
fi
echo "test_tool_bench_cpu: all passed"
