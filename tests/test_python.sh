#!/bin/sh
# tests/test_python.sh: the Python package (python/) against this build:
# its pytest suite (python/tests/: every payload on the CPU backend
# against float64 references, the plan cache, the refusals, warm) with the
# build tree's library (core/.libs/libtilepipe.so) and registry
# (tilepipe.ini). Run by `make check` from the top build folder, with the
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
TILEPIPE_LIBRARY="$lib" TILEPIPE_REGISTRY="$PWD/tilepipe.ini" TILEPIPE_CACHE_DIR="$cache" \
  PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1 \
  "$python" -m pytest -q -p no:cacheprovider "$srcdir/python/tests"
