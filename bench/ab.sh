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
# other, AB_ROUNDS times (default 1), each bench run limited to AB_TIMEOUT
# seconds (default 300), for the payload AB_PAYLOAD (default standard).
# Each variant keeps its linked kernels in a cache of its own, filled ahead
# by `tilepipe warm`. One line per shape into $OUT/ab.txt:
#
#   round variant dtype epilogue M N K our_ms cublaslt_ms ratio
#
# Compare variants through the ratio (cuBLASLt in the same run), and run
# two rounds to see the noise.
#
# AB_TREES="NAME=DIR ..." makes variant NAME a whole other source tree (say,
# an older commit's `git archive`, carried in a git-ignored folder) instead
# of the checkout with patches. Its plugins are timed through the base
# variant's tilepipe (so VARIANTS must hold base): the same bench code and
# the same device-made inputs on both sides, which the loader allows while
# the plugin ABI's major version matches (it refuses the plugins otherwise).
#
# Run from the repository root on the GPU
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
payload=${AB_PAYLOAD:-standard}
mkdir -p "$out"

# The source tree of a variant named in AB_TREES, or nothing.
tree_of() {
  local t
  for t in ${AB_TREES:-}; do
    [ "${t%%=*}" = "$1" ] && { realpath "${t#*=}"; return; }
  done
}

autoreconf -fi > /tmp/ab-autoreconf.log 2>&1 || { tail /tmp/ab-autoreconf.log; exit 1; }
pids=()
for v in $variants; do
  (
    src=/tmp/ab-src-$v build=/tmp/ab-$v
    rm -rf "$src" "$build" && mkdir -p "$src" "$build" || exit 1
    tree=$(tree_of "$v")
    if [ -n "$tree" ]; then
      tar -C "$tree" -cf - . | tar -xf - -C "$src" &&
        (cd "$src" && autoreconf -fi > autoreconf.log 2>&1) ||
        { echo "ab: $v: $tree does not configure; $v is not timed"; exit 1; }
    else
      tar --exclude=./.gpu-deps --exclude=./.git --exclude=./.ab -cf - . | tar -xf - -C "$src"
    fi
    [ -n "$tree" ] || for p in ${v//+/ }; do
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

# The tool that times variant v: its own, or the base's for a tree variant.
tool_of() {
  if [ -n "$(tree_of "$1")" ]; then echo /tmp/ab-base/tools/tilepipe; else echo "/tmp/ab-$1/tools/tilepipe"; fi
}

# Every kernel the runs will plan, linked into each variant's cache first,
# one link per CPU (`tilepipe warm`), rather than one at a time inside the
# first round's timing loop.
for v in $built; do
  for spec in "${specs[@]}"; do
    set -- $spec
    TILEPIPE_CACHE_DIR=/tmp/ab-cache-$v "$(tool_of "$v")" warm --registry "/tmp/ab-$v/tilepipe.ini" \
      --shapes "$shapes" --payload "$payload" --epilogue "$2" --dtype "a=$1,b=$1,d=bf16" \
      > "/tmp/ab-warm-$v-$1-$2.log" 2>&1 || echo "ab: $v $spec: warm failed (see /tmp/ab-warm-$v-$1-$2.log)"
  done
done
echo "ab: built and linked in ${SECONDS} s" >&2

for round in $(seq "${AB_ROUNDS:-1}"); do
  for v in $built; do
    for spec in "${specs[@]}"; do
      set -- $spec
      TILEPIPE_CACHE_DIR=/tmp/ab-cache-$v timeout "${AB_TIMEOUT:-300}" "$(tool_of "$v")" bench \
        --registry /tmp/ab-$v/tilepipe.ini --payload "$payload" --shapes "$shapes" --dtype "$1" --out-dtype bf16 \
        --epilogue "$2" --iters 40 2>&1 | grep -E '^ +[0-9]+ +[0-9]+ +[0-9]+ ' |
        awk -v r="$round" -v v="$v" -v s="$1 $2" '{print r, v, s, $1, $2, $3, $5, $7, $9}'
      echo "ab: round $round, $v, $spec: done at ${SECONDS} s" >&2
    done
  done
done | tee "$out/ab.txt"
