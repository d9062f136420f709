#!/bin/bash
# bench/ab.sh: times variants of the checkout's kernels against each other,
# all in one device call.
#
#   VARIANTS="base x x+y" bench/ab.sh PATCH_DIR ["DTYPE EPILOGUE" ...]
#
# A variant is the checkout itself (`base`) or the checkout with
# PATCH_DIR/NAME.patch applied (`git diff` output, `patch -p1`) for each
# NAME joined by '+'. Every variant is configured and built at once, side by
# side in /tmp/ab-VARIANT (well under a minute on the GPU machine: device
# code is linked at plan time), then timed with `tilepipe bench` over the
# shapes file AB_SHAPES (default bench/shapes.txt) for each "DTYPE
# EPILOGUE" (default "bf16 store" "bf16 residual"), one variant after the
# other, AB_ROUNDS times (default 1). Each variant keeps its linked kernels
# in a cache of its own. One line per shape into $OUT/ab.txt:
#
#   round variant dtype epilogue M N K our_ms cublaslt_ms ratio
#
# Compare variants through the ratio (cuBLASLt in the same run), and run
# two rounds to see the noise. Run from the repository root on the GPU
# machine (the device tool), with .gpu-deps carried:
#
#   run(command="OUT=$OUT VARIANTS='base try' bench/ab.sh exp", carry=[".gpu-deps"])
set -u
[ $# -ge 1 ] || { echo "usage: VARIANTS=\"base NAME...\" $0 PATCH_DIR [\"DTYPE EPILOGUE\" ...]"; exit 2; }
patches=$(cd "$1" && pwd) || exit 2
shift
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=("bf16 store" "bf16 residual")
[ -f .gpu-deps/env.sh ] && . .gpu-deps/env.sh
out=${OUT:-/tmp/tp-out}
shapes=$(realpath "${AB_SHAPES:-bench/shapes.txt}")
variants=${VARIANTS:-base}
mkdir -p "$out"

autoreconf -fi > /tmp/ab-autoreconf.log 2>&1 || { tail /tmp/ab-autoreconf.log; exit 1; }
pids=()
for v in $variants; do
  (
    src=/tmp/ab-src-$v build=/tmp/ab-$v
    rm -rf "$src" "$build" && mkdir -p "$src" "$build" || exit 1
    tar --exclude=./.gpu-deps --exclude=./.git -cf - . | tar -xf - -C "$src"
    for p in ${v//+/ }; do
      [ "$p" = base ] || patch -s -t -d "$src" -p1 < "$patches/$p.patch" ||
        { echo "ab: $v: $p.patch does not apply; $v is not timed"; exit 1; }
    done
    cd "$build" && "$src/configure" > configure.log 2>&1 && make -j8 > build.log 2>&1 ||
      { echo "ab: $v does not build (see $build); $v is not timed"; exit 1; }
  ) &
  pids+=($!)
done
# Only the variants whose subshell succeeded are timed: one whose patch or
# build failed would be timed as whatever its folder held, under its name.
built=""
i=0
for v in $variants; do
  wait "${pids[$i]}" && built="$built $v"
  i=$((i + 1))
done

for round in $(seq "${AB_ROUNDS:-1}"); do
  for v in $built; do
    for spec in "${specs[@]}"; do
      set -- $spec
      TILEPIPE_CACHE_DIR=/tmp/ab-cache-$v timeout 300 /tmp/ab-$v/tools/tilepipe bench \
        --registry /tmp/ab-$v/tilepipe.ini --shapes "$shapes" --dtype "$1" --out-dtype bf16 \
        --epilogue "$2" --iters 40 2>&1 | grep -E '^ +[0-9]+ +[0-9]+ +[0-9]+ ' |
        awk -v r="$round" -v v="$v" -v s="$1 $2" '{print r, v, s, $1, $2, $3, $5, $7, $9}'
    done
  done
done | tee "$out/ab.txt"
