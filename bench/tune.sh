#!/bin/bash
# bench/tune.sh: times tunings of the standard payload against each other.
#
#   bench/tune.sh BUILD DTYPE "M N K" [...] -- "TUNING" [...]
#
# For every shape and every TUNING (INI lines of a registry section, ';'
# separated, e.g. "tile = 128x128x64; splits = 4"; "" is the heuristic's
# choice), runs `tilepipe bench` from the build tree BUILD with the
# standard payload so tuned, and prints one line: shape, tuning, our ms,
# cuBLASLt ms, ratio, and whether our output matched cuBLASLt's. The
# registry is BUILD's plus one section per tuning.
# TUNE_EPILOGUE=residual times the residual epilogue (default store).
# Used to set the heuristic's constants in plugins/standard/gpu.c; needs a
# GPU (the device tool).
set -u
build=$1 dtype=$2
shift 2
shapes=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shapes+=("$1"); shift; done
shift
tunings=("$@")

reg=$(mktemp /tmp/tune-XXXXXX.ini)
trap 'rm -f "$reg"' EXIT
cp "$build/tilepipe.ini" "$reg"
lib=$(sed -n 's/^library = \(.*tp_standard.so\)$/\1/p' "$build/tilepipe.ini" | head -n 1)
for i in "${!tunings[@]}"; do
  printf '\n[tune%d]\nkind = payload\nlibrary = %s\n%s\n' "$i" "$lib" \
    "$(printf '%s' "${tunings[$i]}" | tr ';' '\n' | sed 's/^ *//')" >> "$reg"
done

for shape in "${shapes[@]}"; do
  set -- $shape
  for i in "${!tunings[@]}"; do
    line=$("$build/tools/tilepipe" bench --registry "$reg" --payload "tune$i" --dtype "$dtype" \
             --epilogue "${TUNE_EPILOGUE:-store}" \
             -m "$1" -n "$2" -k "$3" --iters 30 2>&1 | grep -E "^ +$1 +$2 +$3 ")
    set -- $shape
    printf '%6s %6s %6s  %-34s %s %s\n' "$1" "$2" "$3" "${tunings[$i]:-heuristic}" \
      "$(echo "$line" | awk '{print "ours", $5, "cublas", $7, "ratio", $9}')" \
      "$(echo "$line" | grep -o -m 1 -E 'MISMATCH|error|ok' | head -n 1)"
  done
done
