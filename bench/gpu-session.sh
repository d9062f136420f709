#!/bin/bash
# bench/gpu-session.sh: everything a GPU session checks, in one call.
#
#   bench/gpu-session.sh [STEP...]      steps: check sanitize example bench host tune
#                                       (default: all but tune, in that order)
#
# Run from the repository root on the GPU machine (the device tool), with
# the Debian packages of ../shared/gpu/README.md carried in .gpu-deps:
#
#   run(command="OUT=$OUT TILEPIPE_COMMIT=<git describe> bench/gpu-session.sh",
#       carry=[".gpu-deps"])
#
# All default steps together take about 11 minutes on an H100 (the build
# about 2), more than one 10-minute call: split them, e.g. "check sanitize
# example" in one call and "bench host" in the next. A call killed at its
# limit returns no log tarball.
#
# It builds into /tmp/tp-build, then:
#   check     make check (GPU tests included; 77 would mean no GPU)
#   sanitize  compute-sanitizer memcheck/racecheck/synccheck on the pipeline
#             test and on fused GEMMs (store, residual with f32 C, 2-CTA
#             clusters, split-K, a split last wave, stream-K, 176- and
#             144-wide tiles, 128 x 64, 64 x 64 and 64 x 48 tiles, a
#             decode M's short A box, blockwise FP8, block_scaled's W4A16,
#             W8A16, W4A4 and W8A8)
#   example   installs into /tmp/tp-prefix, builds examples/bias_silu,
#             examples/int8_w8a8 and examples/int8_w8a16 out of tree and
#             runs their tests (CPU and CUDA), and the int8 payloads' fused
#             GEMMs under compute-sanitizer
#   bench     tilepipe bench over bench/shapes.txt: bf16 store, e4m3 store,
#             bf16 residual (beta = 1) of the standard payload, e4m3 store
#             of blockwise_fp8 (against cuBLASLt's blockwise FP8), or
#             BENCH_SPECS="DTYPE EPILOGUE [PAYLOAD],...",
#             each with the device's ceilings and every shape's floor
#             (--roofline): CSV into $OUT, JSON into the log tarball (the
#             device tool returns at most 8 files)
#   host      plan time (cold link, then disk cache in a second process) and
#             host time per run call
#   tune      bench/tune.sh: TUNE_TUNINGS over TUNE_SHAPES for each of
#             TUNE_DTYPES (default: tile widths x splits over the M <= 128
#             shapes, bf16); TUNE_EPILOGUE=residual for the residual
#   profile   ncu on ours and cuBLASLt's kernels at PROFILE_ARGS (default
#             "-m 4096 -n 32768 -k 512"; may add --dtype and --payload)
# Bench CSV/JSON go to $OUT (default /tmp/tp-out), every log into
# $OUT/logs.tgz (the device tool returns at most 8 files); a short summary
# is printed last. Each step has a time limit so the whole stays inside one
# 10-minute device call.
set -u
repo=$(pwd)
out=${OUT:-/tmp/tp-out}
build=/tmp/tp-build
prefix=/tmp/tp-prefix
commit=${TILEPIPE_COMMIT:-unknown}
export TILEPIPE_COMMIT=$commit TILEPIPE_CACHE_DIR=${TILEPIPE_CACHE_DIR:-/tmp/tp-cache}
logs=/tmp/tp-logs
rm -rf "$logs" && mkdir -p "$out" "$logs"
steps=${*:-check sanitize example bench host}
summary=""
say() { summary="$summary$1"$'\n'; echo "$1"; }

[ -f .gpu-deps/env.sh ] && . .gpu-deps/env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$logs/gpu.txt" 2>&1
say "gpu: $(cat "$logs/gpu.txt"), commit $commit"

autoreconf -fi > "$logs/autoreconf.log" 2>&1 || { tail "$logs/autoreconf.log"; exit 1; }
mkdir -p "$build" && cd "$build" || exit 1
if [ ! -f Makefile ]; then
  "$repo/configure" --enable-werror --prefix="$prefix" > "$logs/configure.log" 2>&1 ||
    { tail -30 "$logs/configure.log"; exit 1; }
fi
make -j"$(nproc)" > "$logs/build.log" 2>&1 || { grep -E "error" "$logs/build.log" | head -30; exit 1; }
cs=/usr/local/cuda/bin/compute-sanitizer

for step in $steps; do
  case $step in
  check)
    timeout 420 make -j"$(nproc)" check > "$logs/check.log" 2>&1
    say "check: rc=$? $(grep -E '^# (PASS|SKIP|FAIL|ERROR)' "$logs/check.log" | tr '\n' ' ')"
    grep -E "^(FAIL|ERROR)" "$logs/check.log"
    cp test-suite.log "$logs/" 2>/dev/null
    ;;
  sanitize)
    timeout 120 make check-pipeline-sanitize > "$logs/sanitize-pipeline.log" 2>&1
    say "sanitize pipeline: rc=$? $(grep -cE 'ERROR SUMMARY: 0 errors|0 hazards' "$logs/sanitize-pipeline.log") clean reports"
    # The tuned GEMMs run from sections of the standard library added to a
    # copy of the build's registry.
    reg=/tmp/tp-sanitize.ini
    lib=$(sed -n 's/^library = \(.*tp_standard.so\)$/\1/p' tilepipe.ini | head -n 1)
    cp tilepipe.ini "$reg"
    section() { printf '\n[%s]\nkind = payload\nlibrary = %s\n%b\n' "$1" "$lib" "$2" >> "$reg"; }
    section standard_cluster2 'tile = 128x128x64\ncluster = 2x1'
    section standard_m64_cluster2 'tile = 64x64x64\ncluster = 2x1'
    section standard_tail3 'tile = 128x128x64\ntail_splits = 3'
    section standard_n176 'tile = 128x176x64'
    section standard_n144 'tile = 128x144x64'
    section standard_n64 'tile = 128x64x64'
    section standard_n48 'tile = 64x48x64'
    section standard_stream 'tile = 128x256x64\nstream_k = on'
    # sanitize_gemm NAME "TOOLS" ARGS...: `tilepipe run --verify ARGS` under
    # each tool, its log sanitize-NAME-TOOL.log.
    sanitize_gemm() {
      local name=$1 tools=$2 tool log
      shift 2
      for tool in $tools; do
        log="$logs/sanitize-$name-$tool.log"
        timeout 120 "$cs" --tool "$tool" --error-exitcode 9 ./tools/tilepipe run --backend cuda \
          --verify --registry "$reg" "$@" > "$log" 2>&1
        say "sanitize gemm $name $tool: rc=$? $(grep -o 'grid [0-9]*.*workspace' "$log" | head -n 1)"
      done
    }
    sanitize_gemm store "memcheck racecheck synccheck" -m 200 -n 136 -k 300
    # f32 C under a bf16 D: D is written over C in the same chunk, wider
    # elements under narrower ones (the case that needs a warp barrier).
    sanitize_gemm residual-f32-c "memcheck racecheck" --epilogue residual \
      --dtype a=e4m3,b=e4m3,d=bf16,c=f32 -m 129 -n 264 -k 300
    # 2-CTA clusters (B multicast, remote empty arrivals), residual, 3 tile
    # rows: the second cluster's upper CTA lies wholly past M.
    sanitize_gemm cluster "memcheck racecheck synccheck" --payload standard_cluster2 \
      --epilogue residual -m 300 -n 264 -k 300
    # The partial last wave split (tail_splits = 3, 128 x 128): 144 tiles,
    # 12 of them in 3 splits.
    sanitize_gemm tail-split "memcheck synccheck" --payload standard_tail3 --epilogue residual \
      -m 1025 -n 2017 -k 1009
    # 176-wide tiles: the last chunk (48 columns) through boxes of its own;
    # N = 529 ends in a one-column tile, past the TMA store's reach.
    sanitize_gemm n176 "memcheck racecheck" --payload standard_n176 --epilogue residual \
      -m 300 -n 529 -k 1009
    # 144-wide tiles: a 16-column last chunk; N = 425 ends inside it.
    sanitize_gemm n144 "memcheck racecheck" --payload standard_n144 --epilogue residual \
      -m 300 -n 425 -k 1009
    # 128 x 64 tiles free each input stage as soon as its wgmma retires
    # (no stage held over to the next k-block); K 1009 ends in a partial
    # k-block, M 300 in a tile whose second A box is past M.
    sanitize_gemm n64 "memcheck racecheck synccheck" --payload standard_n64 --epilogue residual \
      -m 300 -n 264 -k 1009
    # 64 x 64 tiles (one consumer warpgroup) in 2-CTA clusters, 5 tile
    # rows; split-K below runs them too (the heuristic's choice at M = 128).
    sanitize_gemm m64 "memcheck racecheck synccheck" --payload standard_m64_cluster2 \
      --epilogue residual -m 300 -n 264 -k 300
    sanitize_gemm split-k "memcheck racecheck synccheck" --epilogue residual -m 128 -n 264 -k 2048
    # 64 x 48 tiles: a single chunk of D, narrower than a whole one; N 1009
    # ends one column past the TMA store's reach.
    sanitize_gemm n48 "memcheck racecheck synccheck" --payload standard_n48 \
      --epilogue residual -m 100 -n 1009 -k 1009
    # Stream-K with C staged through an input stage: 12 tiles of 128 x 256,
    # each CTA a share of their 756 k-blocks, a tile over up to 3 CTAs.
    sanitize_gemm stream "memcheck racecheck synccheck" --payload standard_stream \
      --epilogue residual -m 300 -n 1000 -k 4000
    # Decode-sized M: A's box of 16 rows, rows 16..63 of every A tile zeroed
    # by the consumers at the start while the loader fills the first stages.
    sanitize_gemm decode "memcheck racecheck synccheck" --epilogue residual -m 13 \
      -n 3000 -k 1009
    # blockwise FP8: A's scale rows by TMA in each stage, B's scales read by
    # the consumers, the promotion after each k-block's group; K 1009 ends
    # in a partial scale block.
    sanitize_gemm blockwise "memcheck racecheck synccheck" --payload blockwise_fp8 \
      --epilogue residual -m 300 -n 1000 -k 1009
    # block_scaled: W4A16 on the transposed tiles after the prologue that
    # permutes A (NVFP4 16 wide, K 4128 ending a k-tile halfway; MXFP4 8
    # wide), W8A16's transposed tiles (64 wide), W4A4 through the
    # dequantizing prologue, MXFP8 W8A8 through the fold.
    sanitize_gemm w4a16 "memcheck racecheck synccheck" --payload block_scaled \
      --epilogue residual --dtype a=bf16,b=e2m1 -m 9 -n 300 -k 4128
    sanitize_gemm w4a16-mxfp4 "memcheck racecheck" --payload block_scaled \
      --dtype a=bf16,b=e2m1,s=ue8m0 -m 7 -n 200 -k 96
    sanitize_gemm w8a16 "memcheck racecheck synccheck" --payload block_scaled \
      --epilogue residual --dtype a=bf16,b=e4m3 -m 64 -n 129 -k 1024
    sanitize_gemm w4a4 "memcheck racecheck" --payload block_scaled --dtype e2m1 \
      -m 300 -n 200 -k 128
    sanitize_gemm w8a8 "memcheck racecheck" --payload block_scaled --dtype a=e4m3,b=e5m2 \
      -m 300 -n 200 -k 1024
    ;;
  profile)
    # Nsight Compute on one run of PROFILE_ARGS (default the short-K shape;
    # may add --dtype, and --payload P to profile another payload's kernel,
    # e.g. "--payload blockwise_fp8 --dtype e4m3 -m 4096 -n 7168 -k 16384"),
    # ours, then cuBLASLt's kernels (every kernel not named tp_*) in a bench
    # of the same problem. Clocks left alone, as the device tool asks;
    # --print-details all for the stall reasons, SourceCounters for where
    # in the SASS the warps stall.
    shape=${PROFILE_ARGS:-"-m 4096 -n 32768 -k 512"}
    ncu_run() {
      timeout 150 /usr/local/cuda/bin/ncu --clock-control none --section SpeedOfLight \
        --section LaunchStats --section Occupancy --section WarpStateStats \
        --section MemoryWorkloadAnalysis --section SchedulerStats --section SourceCounters \
        --print-details all "$@"
    }
    ncu_run -k regex:^tp_ -c 1 ./tools/tilepipe run --backend cuda $shape \
      > "$logs/profile.txt" 2>&1
    say "profile ($shape): rc=$?"
    ncu_run -k 'regex:^([^t]|t[^p])' -c 3 ./tools/tilepipe bench $shape --warmup 1 --iters 20 \
      > "$logs/profile-cublaslt.txt" 2>&1
    say "profile cuBLASLt: rc=$? $(grep -cE '^  [a-zA-Z_].*\(' "$logs/profile-cublaslt.txt") kernels"
    ;;
  example)
    make install > "$logs/install.log" 2>&1 || { say "example: install failed"; continue; }
    # Copies, built out of tree (the checkout may hold a build from here).
    rm -rf /tmp/tp-example /tmp/tp-int8 && cp -R "$repo/examples/bias_silu" /tmp/tp-example &&
      cp -R "$repo/examples/int8_w8a8" /tmp/tp-int8
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" timeout 200 make -C /tmp/tp-example check \
      > "$logs/example.log" 2>&1
    say "example: rc=$? $(tail -n 4 "$logs/example.log" | tr '\n' ' ')"
    # The int8 payload (a GPU mainloop of its own) with every epilogue, on
    # the CPU and the GPU; then its fused kernels under the sanitizers.
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" timeout 300 make -C /tmp/tp-int8 check \
      BIAS_SILU=/tmp/tp-example/tp_bias_silu.so > "$logs/example-int8.log" 2>&1
    say "example int8: rc=$? $(grep -E 'backend|PASS|FAIL' "$logs/example-int8.log" | tr '\n' ' ')"
    { cat /tmp/tp-int8/registry.ini
      printf '\n[store]\nkind = epilogue\nlibrary = tp_store.so\n'
      printf '\n[residual]\nkind = epilogue\nlibrary = tp_residual.so\n'; } > /tmp/tp-int8/run.ini
    for tool in memcheck racecheck synccheck; do
      timeout 120 "$cs" --tool "$tool" --error-exitcode 9 "$prefix/bin/tilepipe" run \
        --backend cuda --verify --registry /tmp/tp-int8/run.ini --payload int8_w8a8 \
        --epilogue residual -m 300 -n 264 -k 1009 > "$logs/sanitize-int8-$tool.log" 2>&1
      say "sanitize gemm int8 $tool: rc=$? $(grep -o 'grid [0-9]*.*workspace' "$logs/sanitize-int8-$tool.log" | head -n 1)"
    done
    # The weight-only int8 payload (mixed-width operands, its B converted
    # in a stage transform): its test on both backends, then its kernels
    # under the sanitizers in 128-row tiles (two warpgroups converting),
    # 2-CTA clusters of 64-row tiles (one, B multicast) and a decode M.
    rm -rf /tmp/tp-w16 && cp -R "$repo/examples/int8_w8a16" /tmp/tp-w16
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" timeout 300 make -C /tmp/tp-w16 check \
      > "$logs/example-w16.log" 2>&1
    say "example int8_w8a16: rc=$? $(grep -E 'backend|PASS|FAIL' "$logs/example-w16.log" | tr '\n' ' ')"
    w16lib=/tmp/tp-w16/tp_int8_w8a16.so
    { cat /tmp/tp-w16/registry.ini
      printf '\n[w16_m64c2]\nkind = payload\nlibrary = %s\ntile = 64x64x64\ncluster = 2x1\n' "$w16lib"
      printf '\n[store]\nkind = epilogue\nlibrary = tp_store.so\n'
      printf '\n[residual]\nkind = epilogue\nlibrary = tp_residual.so\n'; } > /tmp/tp-w16/run.ini
    for tool in memcheck racecheck synccheck; do
      for args in "int8_w8a16 -m 300 -n 264 -k 1008" "w16_m64c2 -m 300 -n 264 -k 1008" \
                  "int8_w8a16 -m 7 -n 136 -k 2048"; do
        set -- $args
        log="$logs/sanitize-w16-$1-$3-$tool.log"
        timeout 120 "$cs" --tool "$tool" --error-exitcode 9 "$prefix/bin/tilepipe" run \
          --backend cuda --verify --registry /tmp/tp-w16/run.ini --payload "$@" \
          --epilogue residual > "$log" 2>&1
        say "sanitize gemm w16 $args $tool: rc=$? $(grep -o 'grid [0-9]*.*workspace' "$log" | head -n 1)"
      done
    done
    ;;
  bench)
    IFS=, read -r -a specs <<< "${BENCH_SPECS:-bf16 store,e4m3 store,bf16 residual,e4m3 store blockwise_fp8}"
    for spec in "${specs[@]}"; do
      set -- $spec
      p=${3:-standard}
      name=$p-$1-$2
      timeout 150 ./tools/tilepipe bench --payload "$p" --shapes "$repo/bench/shapes.txt" \
        --dtype "$1" --out-dtype bf16 --epilogue "$2" --roofline --csv "$out/bench-$name.csv" \
        --json "$logs/bench-$name.json" > "$logs/bench-$name.txt" 2>&1
      say "bench $p $1 $2: rc=$? $(grep -E '^ceilings|geometric mean' "$logs/bench-$name.txt" | tr '\n' ' ')"
    done
    ;;
  host)
    rm -rf "$TILEPIPE_CACHE_DIR.host"
    for pass in cold disk; do
      TILEPIPE_CACHE_DIR="$TILEPIPE_CACHE_DIR.host" timeout 60 ./tools/tilepipe bench \
        -m 4096 -n 4096 -k 4096 --iters 20 > "$logs/host-$pass.txt" 2>&1
      say "host $pass: $(grep -E '^ +4096' "$logs/host-$pass.txt" | awk '{print "plan_ms", $10, "host_us", $11}')"
    done
    ;;
  tune)
    # Tunings against the heuristic's plan, for each of TUNE_DTYPES
    # (default bf16): TUNE_TUNINGS ('|' between tunings; '', a section of
    # no keys, times the heuristic again: the noise), by
    # default tile shapes x splits (K in a tile is the dtype's k-block: 64,
    # fp8 128), and 64 x 64 in 2-CTA clusters; over TUNE_SHAPES (';'
    # between shapes), by default the M <= 128 ones. TUNE_EPILOGUE=residual
    # times the residual.
    IFS=';' read -r -a tune_shapes <<< "${TUNE_SHAPES:-128 4096 7168;64 4096 7168;128 7168 16384;64 7168 16384}"
    for dt in ${TUNE_DTYPES:-bf16}; do
      case $dt in e4m3|e5m2) kb=128 ;; *) kb=64 ;; esac
      tunings=()
      if [ -n "${TUNE_TUNINGS:-}" ]; then
        IFS='|' read -r -a tunings <<< "$TUNE_TUNINGS"
      else
        for t in "" "128x128 2" "128x64 1" "128x64 2" "64x64 1" "64x64 2" "64x64 1 2x1"; do
          set -- $t
          tunings+=("${1:+tile = ${1}x$kb; splits = $2}${3:+; cluster = $3}")
        done
      fi
      timeout 300 "$repo/bench/tune.sh" . "$dt" "${tune_shapes[@]}" -- "${tunings[@]}" \
        > "$logs/tune-$dt.txt" 2>&1
      say "tune $dt: rc=$?"
      cat "$logs/tune-$dt.txt"
      summary="$summary$(cat "$logs/tune-$dt.txt")"$'\n'
    done
    ;;
  *) say "unknown step $step" ;;
  esac
done
printf '%s' "$summary" > "$logs/summary.txt"
tar czf "$out/logs.tgz" -C "$logs" .
printf '\n=== summary\n%s' "$summary"
