"""python/examples/tensor_parallel.py: a Megatron-style tensor-parallel MLP
whose local GEMMs are tilepipe's, over torch.distributed with NCCL.

    torchrun --nproc_per_node=2 python/examples/tensor_parallel.py [--tokens 1,16,2048]

One process per GPU. The MLP is y = W2 gelu(W1 x) with W1 [F, H] split by
rows (column-parallel: rank r holds the F/P rows r*F/P .., so gelu applies
to its own slice without communication) and W2 [H, F] split by columns
(row-parallel: rank r holds the matching F/P columns); each rank computes
its partial y_r = gelu(x @ W1_r.T) @ W2_r.T with tilepipe.matmul (both
weights are [N, K], as tilepipe and torch.nn.Linear keep them), and one
NCCL all-reduce sums the partials. Activations and weights are bf16, the
partials bf16 as in Megatron.

Checked on every rank against a single-GPU float32 reference of the whole
MLP (the full weights, drawn from one seed on every rank), and against the
same tensor-parallel MLP with torch.matmul; then both are timed (CUDA
events around whole steps, the all-reduce included, after a warm-up; the
median of --iters) and rank 0 prints the figures. Exits 1 when a check
fails.

NCCL_NVLS_ENABLE=0 (no NVLink multicast, which the GPU machines here must
not use) is set before NCCL starts when the environment lacks it, and a
run with it set otherwise is refused."""
import argparse
import os
import statistics
import sys

if os.environ.setdefault("NCCL_NVLS_ENABLE", "0") != "0":
    sys.exit("tensor_parallel.py: NCCL_NVLS_ENABLE must be 0 (no NVLink multicast)")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import tilepipe  # noqa: E402


def mlp(x, w1, w2, gemm):
    """This rank's partial, summed over the ranks by NCCL."""
    y = gemm(F.gelu(gemm(x, w1)), w2)
    dist.all_reduce(y)
    return y


def tilepipe_gemm(x, w):
    return tilepipe.matmul(x, w)


def torch_gemm(x, w):
    return torch.matmul(x, w.t())


def median_ms(fn, iters):
    for _ in range(5):
        fn()
    times = []
    for _ in range(iters):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--ffn", type=int, default=14336)
    p.add_argument("--tokens", default="1,16,128,2048", help="comma-separated token counts (M)")
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--tolerance", type=float, default=2e-2,
                   help="largest relative (normwise) error against the float32 reference")
    args = p.parse_args()

    rank, world = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local)
    device = torch.device("cuda", local)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=device)
    if args.ffn % world:
        sys.exit(f"tensor_parallel.py: --ffn {args.ffn} does not split over {world} ranks")
    part = args.ffn // world

    gen = torch.Generator(device=device)
    gen.manual_seed(1234)
    scale1, scale2 = args.hidden ** -0.5, args.ffn ** -0.5
    w1 = (torch.randn(args.ffn, args.hidden, generator=gen, device=device) * scale1).bfloat16()
    w2 = (torch.randn(args.hidden, args.ffn, generator=gen, device=device) * scale2).bfloat16()
    w1_r = w1[rank * part:(rank + 1) * part].contiguous()     # column-parallel: rows of W1
    w2_r = w2[:, rank * part:(rank + 1) * part].contiguous()  # row-parallel: columns of W2

    failed = False
    if rank == 0:
        print(f"tensor-parallel MLP over {world} GPU(s): H {args.hidden}, F {args.ffn} "
              f"({part} per rank), bf16, {torch.cuda.get_device_name(device)}")
        print(f"{'tokens':>7} {'rel err tilepipe':>17} {'rel err torch':>14} "
              f"{'tilepipe ms':>12} {'torch ms':>9} {'speed-up':>9}")
    for tokens in (int(t) for t in args.tokens.split(",")):
        x = torch.randn(tokens, args.hidden, generator=gen, device=device).bfloat16()
        ref = F.gelu(x.float() @ w1.float().t()) @ w2.float().t()
        errors = []
        for gemm in (tilepipe_gemm, torch_gemm):
            y = mlp(x, w1_r, w2_r, gemm).float()
            errors.append(((y - ref).norm() / ref.norm()).item())
        ms = [median_ms(lambda g=gemm: mlp(x, w1_r, w2_r, g), args.iters)
              for gemm in (tilepipe_gemm, torch_gemm)]
        bad = not errors[0] <= args.tolerance
        failed |= bad
        if rank == 0:
            print(f"{tokens:>7} {errors[0]:>17.3e} {errors[1]:>14.3e} {ms[0]:>12.3f} "
                  f"{ms[1]:>9.3f} {ms[1] / ms[0]:>8.2f}x" + ("  FAILED" if bad else ""))
    verdict = torch.tensor([int(failed)], device=device)
    dist.all_reduce(verdict)
    dist.destroy_process_group()
    if verdict.item():
        if rank == 0:
            print(f"tensor_parallel.py: a rank's error exceeded {args.tolerance}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
