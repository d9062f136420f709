#!/bin/sh
# tests/test_gpu_skips.sh: on a machine without the CUDA driver, every GPU
# test skips (77) naming the missing libcuda.so.1, as the library itself
# does (`tilepipe run --backend cuda`), not with a runtime's stand-in such
# as cudart's "driver version is insufficient". Run by `make check` from the
# top build folder; with a driver (or without the CUDA toolkit) there is
# nothing to compare, and it skips. The GPU tests are every tests/test_gpu_*
# program and those listed by name below, so that a new test_gpu_ program
# is covered without a word here; a listed program that is missing fails.
set -u
tool=./tools/tilepipe
if [ ! -x "$tool" ] || [ ! -f tilepipe.ini ]; then
  echo "test_gpu_skips: run from the top build folder after make" >&2
  exit 99
fi
why=$("$tool" run --registry tilepipe.ini --backend cuda -m 8 -n 8 -k 8 2>&1)
case $why in
*"cannot open libcuda.so.1"*) ;;
*) echo "test_gpu_skips: the CUDA driver is there (or not looked for): nothing to compare"
   exit 77 ;;
esac
failures=0
for test in tests/test_gpu_* tests/test_cuda_launch tests/test_device tests/test_seeded_gpu \
            tests/device/test_pipeline_device; do
  case $test in *.*) continue ;; esac # sources, objects, logs: not programs
  if [ ! -x "$test" ]; then
    echo "FAIL: $test is not built" >&2
    failures=$((failures + 1))
    continue
  fi
  out=$("$test" 2>&1)
  rc=$?
  if [ "$rc" -ne 77 ]; then
    echo "FAIL: $test exits $rc without a driver, not 77 (skip)" >&2
    failures=$((failures + 1))
  elif ! printf '%s\n' "$out" | grep -q 'cannot open libcuda\.so\.1'; then
    echo "FAIL: $test skips without naming libcuda.so.1:" >&2
    printf '%s\n' "$out" | sed 's/^/    /' >&2
    failures=$((failures + 1))
  fi
done
[ "$failures" -eq 0 ] || exit 1
exit 0
