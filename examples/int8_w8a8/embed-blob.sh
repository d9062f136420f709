#!/bin/sh
# embed-blob.sh IN OUT NAME: writes OUT, a C header holding IN's bytes as
#   static _Alignas(16) const unsigned char NAME[] = { ... };
# for the one C file that includes it (plugin.c puts NAME in its
# tp_plugin_desc as device_image). od and sed are POSIX; where od is
# missing, xxd -i does the same job.
set -eu
in=$1 out=$2 name=$3
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
{
  printf '/* generated from %s by embed-blob.sh; do not edit */\n' "$(basename "$in")"
  printf 'static _Alignas(16) const unsigned char %s[] = {\n' "$name"
  if command -v od >/dev/null 2>&1; then
    od -An -v -tx1 "$in" | sed -e 's/^ *//' -e 's/ *$//' -e '/^$/d' \
      -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'
  else
    xxd -i <"$in"
  fi
  printf '};\n'
} >"$tmp"
mv "$tmp" "$out"
trap - EXIT
