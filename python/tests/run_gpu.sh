#!/bin/sh
# python/tests/run_gpu.sh: the Python package on a GPU machine, in one
# command, from a build folder of a tilepipe configured with the CUDA
# toolkit and built (make):
#
#     sh python/tests/run_gpu.sh [BUILD_DIR]      # BUILD_DIR: default .
#
# 1. checks that python3 has torch with CUDA, numpy, ml_dtypes and pytest
#    (with TP_WHEELS=DIR it installs the missing ones from the wheels in
#    DIR, offline: pip download them on a machine with a network), and that
#    tilepipe.matmul runs on the CUDA backend (a build without the toolkit
#    would only skip the GPU tests);
# 2. runs the package's pytest suite (python/tests: the CPU tests and
#    test_torch_cuda.py, every GPU test) with the build's library and
#    registry;
# 3. runs python/bench.py (tilepipe against torch.matmul / torch._scaled_mm,
#    and the host time per call);
# 4. with two or more GPUs, runs python/examples/tensor_parallel.py under
#    torchrun on two of them (NCCL_NVLS_ENABLE=0: no NVLink multicast).
#
# Every step runs; the script exits 1 when any failed, naming them.
# STEPS picks some of them (default "pytest bench tensor_parallel", so
# each may run as its own command under a time limit); PYTHON overrides
# python3; BENCH_ARGS and TP_ARGS are passed to the bench and the example.
set -u
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-.}" && pwd) || exit 1
python=${PYTHON:-python3}
lib="$build/core/.libs/libtilepipe.so"
[ -f "$lib" ] || { echo "run_gpu.sh: no $lib: give the build folder (after make)" >&2; exit 1; }
[ -f "$build/tilepipe.ini" ] || { echo "run_gpu.sh: no $build/tilepipe.ini" >&2; exit 1; }
export TILEPIPE_LIBRARY="$lib" TILEPIPE_REGISTRY="$build/tilepipe.ini"
export PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
export NCCL_NVLS_ENABLE=0

missing=""
for module in torch numpy ml_dtypes pytest; do
  "$python" -c "import $module" 2>/dev/null || missing="$missing $module"
done
if [ -n "$missing" ] && [ -n "${TP_WHEELS:-}" ]; then
  # shellcheck disable=SC2086
  "$python" -m pip install --no-index --find-links "$TP_WHEELS" $missing || exit 1
  missing=""
  for module in torch numpy ml_dtypes pytest; do
    "$python" -c "import $module" 2>/dev/null || missing="$missing $module"
  done
fi
[ -z "$missing" ] || { echo "run_gpu.sh: $python lacks:$missing (TP_WHEELS=DIR installs them)" >&2; exit 1; }

"$python" - <<'EOF' || exit 1
import sys, torch
if not torch.cuda.is_available():
    sys.exit("run_gpu.sh: torch sees no CUDA device")
import tilepipe
x = torch.zeros(8, 64, dtype=torch.bfloat16, device="cuda")
try:
    tilepipe.matmul(x, x)
except tilepipe.NoDeviceError as e:
    sys.exit(f"run_gpu.sh: tilepipe's CUDA backend is not there: {e}")
print(f"torch {torch.__version__}, tilepipe {tilepipe.__version__}, "
      f"{torch.cuda.device_count()} x {torch.cuda.get_device_name(0)}")
EOF

failed=""
steps=${STEPS:-pytest bench tensor_parallel}
step() {
  name=$1
  shift
  case " $steps " in *" $name "*) ;; *) return 0 ;; esac
  echo "=== $name: $*"
  "$@" || failed="$failed $name"
}

step pytest "$python" -m pytest -q -rs -p no:cacheprovider "$srcdir/python/tests"
# shellcheck disable=SC2086
step bench "$python" "$srcdir/python/bench.py" ${BENCH_ARGS:-}
gpus=$("$python" -c "import torch; print(torch.cuda.device_count())")
if [ "$gpus" -ge 2 ]; then
  # shellcheck disable=SC2086
  step tensor_parallel "$python" -m torch.distributed.run --standalone --nproc_per_node=2 \
    "$srcdir/python/examples/tensor_parallel.py" ${TP_ARGS:-}
else
  step tensor_parallel echo "not run: $gpus GPU"
fi

if [ -n "$failed" ]; then
  echo "run_gpu.sh: FAILED:$failed" >&2
  exit 1
fi
echo "run_gpu.sh: all passed"
