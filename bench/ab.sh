#!/bin/bash
# bench/ab.sh: times variants of the checkout's kernels against each other,
# all in one device call, interleaved in the same bench runs.
#
#   VARIANTS="base x x+y" bench/ab.sh PATCH_DIR ["DTYPE EPILOGUE" ...]
#
# (DTYPE one dtype for A and B, or a spec such as a=bf16,b=e4m3.)
# A variant is the checkout itself (`base`, always built, added when
# VARIANTS lacks it) or the checkout with PATCH_DIR/NAME.patch applied
# (`git diff` output, `patch -p1`) for each NAME joined by '+'; at most 4
# besides base. Every variant is configured and built at once, side by
# side in /tmp/ab-VARIANT (well under a minute on the GPU machine: device
# code is linked at plan time). Then base's tilepipe times them all
# together: bench/ab-registry.sh writes one registry, base's sections as
# they are plus each other variant's renamed NAME_VARIANT ('+' and any
# other character a section name cannot hold turned into '.', so x+y's
# payload is standard_x.y), `tilepipe warm` links every kernel into one
# cache (each variant through its own registry, whose section names give
# the problem kinds; the cache keys name the blobs, not the sections), and
# for each "DTYPE EPILOGUE" (default "bf16 store" "bf16 residual") and
# each of AB_ROUNDS rounds (default 1) one `tilepipe bench --versus
# PAYLOAD_V:EPILOGUE_V ...` run over the shapes file AB_SHAPES (default
# bench/shapes.txt) times base's payload AB_PAYLOAD (default standard) and
# every variant's on the same inputs, one run of each in turn per round
# of the bench's timing (docs/tool.md, `--versus`), limited to AB_TIMEOUT
# seconds (default 300). What runs for a variant is its plugins, with the
# plugin API and skeleton headers compiled into them
# (include/tilepipe/plugin/, include/tilepipe/internal/): base's library
# plans and launches every side,
# so a patch's changes elsewhere (core/, tools/) are not measured (the
# script says so for such a patch).
#
# One line per shape and variant into $OUT/ab.txt, as ever:
#
#   round variant dtype epilogue M N K our_ms cublaslt_ms ratio
#
# where our_ms is the variant's own median in the shared run, cublaslt_ms
# the run's cuBLASLt and ratio cublaslt_ms / our_ms; and one line per
# shape into $OUT/ab-versus.txt:
#
#   round dtype epilogue M N K base_ms VARIANT ms speed_x check [...]
#
# speed_x being the variant's ms / base's (above 1: base is faster) and
# check `ok`, `MISMATCH` (its D is not base's) or `not_compared` (the
# bench log, /tmp/ab-bench-ROUND-DTYPE-EPILOGUE.log, says why). Compare
# variants through speed_x; run two rounds to see the noise.
#
# AB_TREES="NAME=DIR ..." makes variant NAME a whole other source tree (say,
# an older commit's `git archive`, carried in a git-ignored folder) instead
# of the checkout with patches. The loader takes its plugins while the
# plugin ABI's major version matches base's (it refuses them otherwise,
# and that variant's lines read nan).
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
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/tp-out}
shapes=$(realpath "${AB_SHAPES:-bench/shapes.txt}")
variants=${VARIANTS:-base}
case " $variants " in *" base "*) ;; *) variants="base $variants" ;; esac
payload=${AB_PAYLOAD:-standard}
mkdir -p "$out"

# section SECTION VARIANT: the name of VARIANT's copy of base's SECTION.
section() {
  if [ "$2" = base ]; then echo "$1"; else bash "$here/ab-registry.sh" --name "$1" "$2"; fi
}

# One bench run times base and at most 4 others; their sections must not
# collide (checked again, with the sections' lengths, when the registry is
# written).
others=0 suffixes=" "
for v in $variants; do
  [ "$v" = base ] && continue
  others=$((others + 1))
  s=$(section "" "$v")
  case "$suffixes" in *" $s "*) echo "ab: variants give the same sections ($s)"; exit 2 ;; esac
  suffixes="$suffixes$s "
done
[ "$others" -le 4 ] || { echo "ab: $others variants besides base; one bench run times at most 4"; exit 2; }

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
      [ "$p" = base ] && continue
      patch -s -t -d "$src" -p1 < "$patches/$p.patch" ||
        { echo "ab: $v: $p.patch does not apply; $v is not timed"; exit 1; }
      outside=$(sed -n 's#^+++ b/##p' "$patches/$p.patch" | grep -Ev '^(plugins|include/tilepipe/plugin|include/tilepipe/internal)/' | tr '\n' ' ')
      [ -z "$outside" ] ||
        echo "ab: $v: $p.patch changes $outside(outside the plugins and the headers compiled into them): base's library times every variant, so that part is not measured"
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
case " $built " in *" base "*) ;; *) echo "ab: base did not build: nothing times the variants"; exit 1 ;; esac

tool=/tmp/ab-base/tools/tilepipe
reg=/tmp/ab-registry.ini
export TILEPIPE_CACHE_DIR=/tmp/ab-cache
pairs=()
for v in $built; do [ "$v" = base ] || pairs+=("$v=/tmp/ab-$v/tilepipe.ini"); done
bash "$here/ab-registry.sh" /tmp/ab-base/tilepipe.ini ${pairs[@]+"${pairs[@]}"} > "$reg" || exit 1
# A section the loader refuses (another plugin ABI, say) leaves its
# variant's lines nan; say so here.
"$tool" list --registry "$reg" > /tmp/ab-registry.txt 2>&1
grep -B1 'error:' /tmp/ab-registry.txt | sed 's/^/ab: registry: /'

# Every kernel the runs will plan, linked into the cache first, one link
# per CPU (`tilepipe warm`), rather than one at a time inside the first
# round's timing loop.
for v in $built; do
  for spec in "${specs[@]}"; do
    set -- $spec
    # DTYPE: one dtype for A and B, or a whole spec (a=bf16,b=e4m3).
    case $1 in *=*) warm_dtype="$1,d=bf16" ;; *) warm_dtype="a=$1,b=$1,d=bf16" ;; esac
    "$tool" warm --registry "/tmp/ab-$v/tilepipe.ini" --shapes "$shapes" --payload "$payload" \
      --epilogue "$2" --dtype "$warm_dtype" > "/tmp/ab-warm-$v-${1//,/_}-$2.log" 2>&1 ||
      echo "ab: $v $spec: warm failed (see /tmp/ab-warm-$v-${1//,/_}-$2.log)"
  done
done
echo "ab: built and linked in ${SECONDS} s" >&2

timed=()
for v in $built; do [ "$v" = base ] || timed+=("$v"); done
echo "# round dtype epilogue M N K base_ms, then per variant: name ms speed_x (its ms / base's) check" \
  > "$out/ab-versus.txt"
for round in $(seq "${AB_ROUNDS:-1}"); do
  for spec in "${specs[@]}"; do
    set -- $spec
    # Even rounds take the variants in reverse: each side's plan, D and
    # workspace are allocated in --versus order, and a kernel's time can
    # depend on where those land (split-K partial sums, bench/results/
    # 2026-11-26-h100-ab2.txt), so a difference that holds in both rounds
    # is not an address's.
    order=() versus=() sections=""
    for v in ${timed[@]+"${timed[@]}"}; do
      if [ $((round % 2)) -eq 0 ]; then order=("$v" ${order[@]+"${order[@]}"}); else order+=("$v"); fi
    done
    for v in ${order[@]+"${order[@]}"}; do
      versus+=(--versus "$(section "$payload" "$v"):$(section "$2" "$v")")
      sections="$sections $(section "$payload" "$v")"
    done
    log=/tmp/ab-bench-$round-$1-$2.log
    # The table's rows: base in columns 1-9, variant i's ms and speed x in
    # columns 8 + 2i and 9 + 2i, each side not ok named in the check.
    timeout "${AB_TIMEOUT:-300}" "$tool" bench --registry "$reg" --payload "$payload" \
      --shapes "$shapes" --dtype "$1" --out-dtype bf16 --epilogue "$2" --iters 40 \
      ${versus[@]+"${versus[@]}"} 2>&1 | tee "$log" | grep -E '^ +[0-9]+ +[0-9]+ +[0-9]+ ' |
      awk -v r="$round" -v s="$1 $2" -v names="${order[*]-}" -v sections="$sections" \
        -v versus_file="$out/ab-versus.txt" '
        {
          n = split(names, name, " ")
          split(sections, sec, " ")
          print r, "base", s, $1, $2, $3, $5, $7, $9
          line = r " " s " " $1 " " $2 " " $3 " " $5
          for (i = 1; i <= n; i++) {
            ms = $(8 + 2 * i)
            ratio = ms ~ /nan/ || $7 ~ /nan/ || ms + 0 <= 0 ? "nan" : sprintf("%.3f", $7 / ms)
            print r, name[i], s, $1, $2, $3, ms, $7, ratio
            check = "ok"
            if (index($0, "; versus " sec[i] " MISMATCH")) check = "MISMATCH"
            if (index($0, "; versus " sec[i] " not compared")) check = "not_compared"
            line = line " " name[i] " " ms " " $(9 + 2 * i) " " check
          }
          print line >> versus_file
          fflush(versus_file)
        }'
    echo "ab: round $round, $spec: done at ${SECONDS} s" >&2
  done
done | tee "$out/ab.txt"
