#!/bin/bash
# bench/ab-registry.sh: the one registry through which bench/ab.sh times
# every variant in the same `tilepipe bench` run.
#
#   bench/ab-registry.sh BASE_INI [VARIANT=INI ...] > REGISTRY
#   bench/ab-registry.sh --name SECTION VARIANT
#
# The first form writes BASE_INI's sections as they are, then every
# section of each VARIANT's INI (its build tree's tilepipe.ini: payloads
# and epilogues) renamed SECTION_SUFFIX, keys kept; a relative `library`
# becomes absolute against its INI's folder, so the registry can live
# anywhere. SUFFIX is the variant's name with each character a section
# name cannot hold (docs/registry.md: A-Z a-z 0-9 _ . -) turned into '.',
# so "x+y-z" gives "standard_x.y-z". The second form prints that name.
# Exit status 2, naming the problem, for an INI it cannot read, two
# variants whose suffixes collide, a variant named base, or a renamed
# section longer than the registry's 48 characters.
set -u

# The section name of SECTION in VARIANT's copy.
renamed() {
  printf '%s_%s\n' "$1" "$(printf '%s' "$2" | tr -c 'A-Za-z0-9_.-' '.')"
}

if [ "${1:-}" = --name ]; then
  [ $# -eq 3 ] || { echo "usage: $0 --name SECTION VARIANT" >&2; exit 2; }
  renamed "$2" "$3"
  exit 0
fi
[ $# -ge 1 ] || { echo "usage: $0 BASE_INI [VARIANT=INI ...] > REGISTRY" >&2; exit 2; }

# INI's lines with each section header renamed for VARIANT (none: kept)
# and each relative library made absolute.
sections() {
  local ini=$1 variant=$2 dir
  [ -f "$ini" ] && [ -r "$ini" ] || { echo "ab-registry: cannot read $ini" >&2; return 2; }
  dir=$(cd "$(dirname "$ini")" && pwd) || return 2
  awk -v dir="$dir" -v variant="$variant" -v suffix="$(renamed "" "$variant")" '
    /^[ \t]*\[[^]]*\][ \t]*$/ {
      name = $0
      gsub(/^[ \t]*\[|\][ \t]*$/, "", name)
      if (variant != "") name = name suffix
      if (length(name) > 48) {
        printf("ab-registry: %s: section [%s] is %d characters long (at most 48): use a shorter variant name\n",
          FILENAME, name, length(name)) > "/dev/stderr"
        bad = 1
      }
      print "[" name "]"
      next
    }
    /^[ \t]*library[ \t]*[=:]/ {
      path = $0
      sub(/^[ \t]*library[ \t]*[=:][ \t]*/, "", path)
      if (path !~ /^\//) { print "library = " dir "/" path; next }
    }
    { print }
    END { exit bad ? 2 : 0 }' "$ini"
}

base_ini=$1
shift
seen=" base "
echo "; bench/ab-registry.sh: $base_ini as it is, then each variant's sections renamed NAME_VARIANT"
sections "$base_ini" "" || exit 2
for pair in "$@"; do
  variant=${pair%%=*} ini=${pair#*=}
  [ "$variant" != "$pair" ] && [ -n "$variant" ] || { echo "ab-registry: '$pair' is not VARIANT=INI" >&2; exit 2; }
  suffix=$(renamed "" "$variant")
  case "$seen" in
  *" ${suffix#_} "*)
    echo "ab-registry: variant '$variant' gives the section suffix '$suffix', as base or an earlier variant does" >&2
    exit 2 ;;
  esac
  seen="$seen${suffix#_} "
  printf '\n; variant %s (%s)\n' "$variant" "$ini"
  sections "$ini" "$variant" || exit 2
done
