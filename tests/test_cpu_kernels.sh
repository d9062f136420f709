#!/bin/sh
# tests/test_cpu_kernels.sh: every payload x epilogue x dtype on the CPU
# backend (tests/test_plugins_cpu) once per micro-kernel the kit can force
# (TILEPIPE_CPU_KERNEL: portable, avx2, avx512; a CPU without one runs the
# best it has, plugins/kit/cpu_microkernel.c; and avx512bf16, bf16 operands
# multiplied as bf16, skipped where the CPU lacks AVX-512 BF16, as Linux's
# /proc/cpuinfo says, since the best it has is one of the others) and with
# 1 and 3 worker threads (TILEPIPE_CPU_THREADS: one thread filling every
# stage and multiplying every row panel, and a split where each fills every
# third stage and the last has fewer panels or none).
set -u
prog=tests/test_plugins_cpu
[ -x "$prog" ] || { echo "test_cpu_kernels: $prog not built" >&2; exit 99; }
status=0
for kernel in portable avx2 avx512 avx512bf16; do
  if [ "$kernel" = avx512bf16 ] && ! grep -qw avx512_bf16 /proc/cpuinfo 2>/dev/null; then
    echo "SKIP: avx512bf16: this CPU lacks AVX-512 BF16"
    continue
  fi
  for threads in 1 3; do
    if TILEPIPE_CPU_KERNEL=$kernel TILEPIPE_CPU_THREADS=$threads "$prog" >/dev/null 2>&1; then
      echo "PASS: $kernel, $threads worker threads"
    else
      echo "FAIL: $kernel, $threads worker threads"
      status=1
    fi
  done
done
exit $status
