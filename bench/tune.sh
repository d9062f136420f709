#!/bin/bash
# bench/tune.sh: times tunings of a payload against its heuristic's choice,
# in the same bench runs.
#
#   bench/tune.sh BUILD DTYPE "M N K" [...] -- "TUNING" [...]
#
# Each TUNING is the INI lines of a registry section, ';'-separated (e.g.
# "tile = 128x128x64; splits = 4"). The registry is BUILD's plus one
# section per tuning (tune0, tune1, ...) over TUNE_PAYLOAD's library
# (default standard). For every four tunings one `tilepipe bench` run over
# the shapes times the payload as the heuristic plans it, each tuning
# (`--versus tuneI`) and cuBLASLt, one run of each in turn per round
# (docs/tool.md, `--versus`), so every tuning meets the same clocks and
# inputs as the heuristic. One line per shape and tuning:
#
#   M N K  TUNING  ms  x SPEED_X  ratio RATIO  CHECK
#
# SPEED_X the tuning's ms over the heuristic's (below 1: the tuning is
# faster), RATIO cuBLASLt's ms over the tuning's, CHECK `ok`, `MISMATCH`
# (its D is not the heuristic's) or `not_compared`; the heuristic's own line
# first, its check against cuBLASLt; a TUNING of "" (a section of no keys,
# the heuristic again) reads "(no keys)", a control of the timing's noise.
# TUNE_EPILOGUE=residual times the residual epilogue (default store);
# TUNE_BACK_TO_BACK=N times N runs of a side in a row per pair of events
# (`tilepipe bench --back-to-back`; default each run alone). It is
# how the heuristic's constants in plugins/kit/kernel_shape.c are set;
# needs a GPU (the device tool).
set -u
[ $# -ge 4 ] || { echo "usage: $0 BUILD DTYPE \"M N K\" [...] -- \"TUNING\" [...]"; exit 2; }
build=$1 dtype=$2
shift 2
shapes=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shapes+=("$1"); shift; done
[ $# -gt 0 ] && shift
tunings=("$@")
payload=${TUNE_PAYLOAD:-standard}
epilogue=${TUNE_EPILOGUE:-store}

tmp=$(mktemp -d /tmp/tune-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
reg=$tmp/registry.ini shapes_file=$tmp/shapes.txt
cp "$build/tilepipe.ini" "$reg"
lib=$(sed -n "s/^library = \(.*tp_$payload.so\)\$/\1/p" "$build/tilepipe.ini" | head -n 1)
[ -n "$lib" ] || { echo "tune: no tp_$payload.so library in $build/tilepipe.ini"; exit 2; }
for i in "${!tunings[@]}"; do
  printf '\n[tune%d]\nkind = payload\nlibrary = %s\n%s\n' "$i" "$lib" \
    "$(printf '%s' "${tunings[$i]}" | tr ';' '\n' | sed 's/^ *//')" >> "$reg"
done
printf '%s\n' "${shapes[@]}" > "$shapes_file"

# run FIRST: one bench run of the heuristic against tunings FIRST..FIRST+3;
# prints the table's rows.
run() {
  local versus=() i
  for ((i = $1; i < $1 + 4 && i < ${#tunings[@]}; i++)); do versus+=(--versus "tune$i"); done
  "$build/tools/tilepipe" bench --registry "$reg" --payload "$payload" --dtype "$dtype" \
    --epilogue "$epilogue" --shapes "$shapes_file" --iters 30 \
    ${TUNE_BACK_TO_BACK:+--back-to-back "$TUNE_BACK_TO_BACK"} ${versus[@]+"${versus[@]}"} 2>&1 |
    grep -E '^ +[0-9]+ +[0-9]+ +[0-9]+ '
}

printf '%s\n' ${tunings[@]+"${tunings[@]}"} > "$tmp/tunings.txt"
first=0
while :; do
  # The table's rows: ours in columns 5 (ms), 7 (cuBLASLt ms), tuning j's
  # ms and speed x in columns 8 + 2j and 9 + 2j (j = 1, 2, ...); ours'
  # check after the timings, each tuning's not ok as "; versus tuneI ...".
  run "$first" | awk -v first="$first" -v total="${#tunings[@]}" -v names="$tmp/tunings.txt" '
    BEGIN { while ((getline line < names) > 0) name[n++] = line == "" ? "(no keys)" : line }
    function ratio(c, ms) { return ms ~ /nan/ || c ~ /nan/ || ms + 0 <= 0 ? "nan" : sprintf("%.3f", c / ms) }
    function versus_check(sec) {
      if (index($0, "; versus " sec " MISMATCH")) return "MISMATCH"
      if (index($0, "; versus " sec " not compared")) return "not_compared"
      return "ok"
    }
    function own_check(   h, a, k) {
      h = $0
      sub(/; versus.*/, "", h)
      sub(/ \(rel.*/, "", h)
      k = split(h, a, " ")
      return a[k] == "compared" ? "not_compared" : a[k]
    }
    {
      if (first == 0)
        printf "%6s %6s %6s  %-34s %s x 1.000 ratio %s %s\n", $1, $2, $3, "heuristic", $5,
               ratio($7, $5), own_check()
      for (j = 1; first + j <= total && j <= 4; j++) {
        i = first + j - 1
        printf "%6s %6s %6s  %-34s %s x %s ratio %s %s\n", $1, $2, $3, name[i],
               $(8 + 2 * j), $(9 + 2 * j), ratio($7, $(8 + 2 * j)), versus_check("tune" i)
      }
    }'
  first=$((first + 4))
  [ "$first" -lt "${#tunings[@]}" ] || break
done
