"""python/bench.py: tilepipe.matmul against torch's own GEMMs on one GPU,
on the same tensors.

    python python/bench.py [--shapes 16x4096x4096,4096x4096x4096] [--device 0]

Two parts:

1. GPU time per GEMM, for each shape M x N x K: bf16 tilepipe.matmul
   against torch.matmul(x, w.t()); e4m3 (standard, per-tensor scale in
   alpha) and blockwise_fp8 against torch._scaled_mm with per-tensor
   scales (bf16 out, w.t() the column-major B it takes). Each is timed
   with CUDA events around `--inner` back-to-back calls on the current
   stream, after a warm-up (the plan made, clocks up); the figure is the
   median of `--reps` such batches, per call, with TFLOP/s from 2 M N K.
   A GEMM torch refuses for the shape (_scaled_mm wants M, N, K multiples
   of 16) prints "-".
2. Host time per call in a decode loop: M = 1 (torch._scaled_mm: M = 16),
   N = K = 256, each call allocating its output as a model's step does,
   for tilepipe.matmul, the operator torch.ops.tilepipe.matmul,
   torch.matmul, torch.nn.functional.linear and torch._scaled_mm, all
   measured the same way. "host" is the host's own time: time.perf_counter()
   around batches of `--batch` calls, each batch started on an idle GPU, so
   that the launch queue never fills and the host never waits for the GPU
   (the median batch, per call). "loop" is `--calls` calls back to back,
   per call: the host's time or the GPU's, whichever is longer (a full
   queue makes the host wait).

`--host-only` runs part 2 alone. Needs torch with CUDA and a tilepipe built
with the CUDA toolkit (TILEPIPE_LIBRARY, TILEPIPE_REGISTRY as in
docs/python.md)."""
import argparse
import statistics
import time

import torch

import tilepipe

E4M3 = torch.float8_e4m3fn


def gpu_ms(fn, inner, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    per_call = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            fn()
        stop.record()
        stop.synchronize()
        per_call.append(start.elapsed_time(stop) / inner)
    return statistics.median(per_call)


def host_us(fn, calls, batch):
    """(host, loop): microseconds per call of fn, the host's own (the
    median of batches of `batch` calls, each begun on an idle GPU) and
    back to back (`calls` calls)."""
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    per_call = []
    for _ in range(max(calls // batch, 1)):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        per_call.append((time.perf_counter() - t0) / batch * 1e6)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    loop = (time.perf_counter() - t0) / calls * 1e6
    torch.cuda.synchronize()
    return statistics.median(per_call), loop


def timed(fn, inner, reps):
    """fn's median ms per call, or None when torch refuses the shape."""
    try:
        return gpu_ms(fn, inner, reps)
    except RuntimeError:
        return None


def gemms(m, n, k, device):
    """(name, tilepipe call, torch call, torch's name) for one shape."""
    x = torch.randn(m, k, device=device).bfloat16()
    w = torch.randn(n, k, device=device).bfloat16()
    xq, wq = x.to(E4M3), w.to(E4M3)
    one = torch.ones((), device=device)
    blocks = -(-k // 128)
    a_scale = torch.ones(blocks, -(-m // 4) * 4, device=device)[:, :m]
    b_scale = torch.ones(-(-n // 128), blocks, device=device)

    def scaled_mm():
        return torch._scaled_mm(xq, wq.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)

    return [
        ("bf16", lambda: tilepipe.matmul(x, w), lambda: torch.matmul(x, w.t()), "torch.matmul"),
        ("e4m3", lambda: tilepipe.matmul(xq, wq, alpha=1.0), scaled_mm, "torch._scaled_mm"),
        ("blockwise_fp8", lambda: tilepipe.matmul(xq, wq, payload="blockwise_fp8",
                                                  a_scale=a_scale, b_scale=b_scale),
         scaled_mm, "torch._scaled_mm (per-tensor)"),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shapes", default="1x4096x4096,16x4096x4096,128x4096x4096,"
                   "2048x4096x4096,4096x4096x4096,4096x14336x4096,4096x4096x14336")
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--inner", type=int, default=20)
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--calls", type=int, default=20000)
    p.add_argument("--batch", type=int, default=200)
    p.add_argument("--host-only", action="store_true", help="the host time per call alone")
    args = p.parse_args()
    torch.cuda.set_device(args.device)
    device = torch.device("cuda", args.device)
    print(f"{torch.cuda.get_device_name(device)}, torch {torch.__version__}, "
          f"tilepipe {tilepipe.__version__}")

    if not args.host_only:
        gpu_times(args, device)
    host_times(args, device)


def gpu_times(args, device):
    print("\nGPU time per GEMM (median of batches, CUDA events)")
    print(f"{'M x N x K':>20} {'payload':>14} {'tilepipe ms':>12} {'TFLOP/s':>8} "
          f"{'torch ms':>9} {'TFLOP/s':>8} {'speed-up':>9}  against")
    for shape in args.shapes.split(","):
        m, n, k = (int(v) for v in shape.split("x"))
        flop = 2.0 * m * n * k
        for name, ours, theirs, against in gemms(m, n, k, device):
            t_ours = gpu_ms(ours, args.inner, args.reps)
            t_theirs = timed(theirs, args.inner, args.reps)
            line = f"{shape:>20} {name:>14} {t_ours:>12.4f} {flop / t_ours / 1e9:>8.1f} "
            if t_theirs is None:
                line += f"{'-':>9} {'-':>8} {'-':>9}"
            else:
                line += (f"{t_theirs:>9.4f} {flop / t_theirs / 1e9:>8.1f} "
                         f"{t_theirs / t_ours:>8.2f}x")
            print(f"{line}  {against}")


def host_times(args, device):
    print(f"\nHost time per call in a decode loop (time.perf_counter; host: median of batches of "
          f"{args.batch} calls begun on an idle GPU; loop: {args.calls} calls back to back)")
    print(f"{'':>40} {'host us':>8} {'loop us':>8}")
    x = torch.randn(1, 256, device=device).bfloat16()
    w = torch.randn(256, 256, device=device).bfloat16()
    xq, wq = torch.randn(16, 256, device=device).to(E4M3), w.to(E4M3)
    one = torch.ones((), device=device)
    loops = [
        ("tilepipe.matmul, bf16 M=1", lambda: tilepipe.matmul(x, w)),
        ("torch.ops.tilepipe.matmul, bf16 M=1", lambda: torch.ops.tilepipe.matmul(x, w)),
        ("torch.matmul, bf16 M=1", lambda: torch.matmul(x, w.t())),
        ("torch.nn.functional.linear, bf16 M=1", lambda: torch.nn.functional.linear(x, w)),
        ("tilepipe.matmul, e4m3 M=16", lambda: tilepipe.matmul(xq, wq)),
        ("torch._scaled_mm, e4m3 M=16",
         lambda: torch._scaled_mm(xq, wq.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)),
    ]
    for name, fn in loops:
        host, loop = host_us(fn, args.calls, args.batch)
        print(f"{name:>40} {host:8.2f} {loop:8.2f}")


if __name__ == "__main__":
    main()
