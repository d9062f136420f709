#!/bin/sh
# tests/test_python.sh: the Python package (python/) against this build:
# its pytest suite (python/tests/: every payload on the CPU backend
# against float64 references, the plan cache, the refusals, warm) with the
# build tree's library (core/.libs/libtilepipe.so) and registry
# (tilepipe.ini); then every ```python block of README.md and docs/*.md,
# each a program run as written in the build folder (docs/python.md shows
# code that is not to run as indented blocks). Run by `make check` from the top build folder, with the
# python3 that configure found (TP_TEST_PYTHON3, tests/local.mk). Skips
# (77) without python3, without numpy, pytest or ml_dtypes in it (.ci/run
# installs them; docs/python.md), and in sanitized builds, whose library a
# plain python3 cannot load (the sanitizer's runtime must come first).
set -u
srcdir=$(cd "$(dirname "$0")/.." && pwd)
python=${TP_TEST_PYTHON3:-}
if [ -z "$python" ]; then
  echo "SKIP: configure found no python3"
  exit 77
fi
case "${TP_TEST_CFLAGS:-}" in
*-fsanitize*)
  echo "SKIP: a sanitized libtilepipe does not load into a plain python3"
  exit 77 ;;
esac
for module in numpy pytest ml_dtypes; do
  if ! "$python" -c "import $module" 2>/dev/null; then
    echo "SKIP: $python has no $module (python3 -m pip install --user numpy ml_dtypes pytest)"
    exit 77
  fi
done
lib="$PWD/core/.libs/libtilepipe.so"
[ -f "$lib" ] || { echo "FAIL: no $lib: run from the top build folder after make"; exit 99; }
cache=$(mktemp -d "${TMPDIR:-/tmp}/tilepipe-python.XXXXXX") || exit 99
trap 'rm -rf "$cache"' EXIT
# The kernel cache of warm's test is this run's own; no bytecode or pytest
# cache is written into the source tree (read-only under distcheck).
export TILEPIPE_LIBRARY="$lib" TILEPIPE_CACHE_DIR="$cache" PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}"
TILEPIPE_REGISTRY="$PWD/tilepipe.ini" "$python" -m pytest -q -p no:cacheprovider \
  "$srcdir/python/tests" || exit 1

# The documents' examples: $cache/doc_N.py, and "N FILE:LINE" per block.
(cd "$srcdir" && awk -v out="$cache" '
  FNR == 1 { fence = 0 }
  /^```/ { if (fence) { fence = 0; close(file) }
           else if ($0 == "```python") { fence = 1; n++; file = out "/doc_" n ".py"
                                         print n, FILENAME ":" FNR > (out "/list") }
           next }
  fence { print > file }
' README.md docs/*.md)
[ -s "$cache/list" ] || { echo "FAIL: no python example in README.md or docs/"; exit 1; }
failures=0
while read -r n where; do
  if "$python" "$cache/doc_$n.py" >"$cache/doc_$n.out" 2>&1; then
    echo "ok: the example at $where runs"
  else
    echo "FAIL: the example at $where:" >&2
    cat "$cache/doc_$n.out" >&2
    failures=$((failures + 1))
  fi
done <"$cache/list"
[ "$failures" -eq 0 ]
