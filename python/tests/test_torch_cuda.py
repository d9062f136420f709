"""python/tests/test_torch_cuda.py: tilepipe on torch CUDA tensors, on the
CUDA backend of a Hopper GPU (skipped without torch, without CUDA, and on a
tilepipe built without the CUDA toolkit).

Every payload with a GPU kernel (standard over bf16, f16 and fp8;
blockwise_fp8; block_scaled's MXFP8 W8A8 and W8A16, strided and 128x4
tiled scales) on ragged M, D poisoned with NaN, against torch's float64
GEMM of the same dequantized inputs on the device, judged by the GPU's
error model with the payload's acc_bits and acc_k and, for W8A8, the
fold's rounding of the operands (reference.check_gpu and rounding; the
scale tensors' shapes and the model's figures come from
tp_problem_describe). Then what torch users lean on: residual with C
aliasing D, strided views (a transposed weight's view, sliced rows), a
side stream whose order the run keeps, every GPU of the host, CUDA-graph
capture and replay (a plan made by a warm-up, a miss during capture
refused), torch.ops.tilepipe.matmul under torch.compile(fullgraph=True)
and mode="reduce-overhead", and the refusals (wrong device, dtype mismatch,
a misaligned pointer), each leaving out as it was."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device for torch", allow_module_level=True)

import tilepipe  # noqa: E402
import reference  # noqa: E402
from reference import BF16, F16, F32, check_gpu, rounding, sf_128x4  # noqa: E402
from tilepipe import dtypes  # noqa: E402


def _cuda_backend_or_skip():
    reg = tilepipe.Registry()
    try:
        x = torch.zeros(8, 64, dtype=torch.bfloat16, device="cuda")
        tilepipe.matmul(x, x, registry=reg)
    except tilepipe.NoDeviceError as e:
        pytest.skip(f"tilepipe's CUDA backend: {e}", allow_module_level=True)
    finally:
        reg.close()


_cuda_backend_or_skip()

E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2
NUMPY_OF = {torch.bfloat16: BF16, torch.float16: F16, torch.float32: F32}
CODE_OF = {torch.bfloat16: dtypes.BF16, torch.float16: dtypes.F16, torch.float32: dtypes.F32,
           E4M3: dtypes.E4M3, E5M2: dtypes.E5M2}


@pytest.fixture
def gen():
    seed = int.from_bytes(np.random.bytes(4), "little")
    print(f"torch seed {seed}")
    g = torch.Generator(device="cuda")
    g.manual_seed(seed)
    return g


def values(gen, shape, dtype, device="cuda"):
    """Normal values over a few octaves, rounded to dtype, on the device."""
    x = torch.randn(shape, generator=gen, device="cuda") * \
        2.0 ** torch.randint(-2, 3, shape, generator=gen, device="cuda")
    return x.to(dtype).to(device)


def poisoned(shape, dtype, device="cuda"):
    return torch.full(shape, float("nan"), dtype=dtype, device=device)


def describe(registry, payload, m, n, k, a_dt, b_dt, d_dt):
    """(desc, problem) as tp_problem_describe fills them for the payload."""
    return reference.describe(registry, payload, m, n, k, CODE_OF[a_dt], CODE_OF[b_dt],
                              CODE_OF[d_dt])


def shape_of(t):
    return tuple(t.shape[:t.rank])


def judge(out, a_deq, b_deq, problem, k, alpha=1.0, beta=0.0, c=None, scales=None):
    """out against alpha * a_deq @ b_deq.T + beta * c in float64 on the device;
    where the problem says the GPU rounds the operands, scales (each element's
    of A and of B) give rounding()'s bound."""
    al = float(np.float32(alpha))
    ref = al * (a_deq @ b_deq.T)
    mag = abs(al) * (a_deq.abs() @ b_deq.abs().T)
    if c is not None and beta != 0.0:
        be = float(np.float32(beta))
        ref, mag = ref + be * c.double(), mag + abs(be) * c.double().abs()
    rounded = None
    if problem.a_rounding.rows or problem.b_rounding.rows:
        host = [x.double().cpu().numpy() for x in (a_deq, scales[0], b_deq, scales[1])]
        rounded = rounding(host[0], host[1], problem.a_rounding, host[2], host[3],
                           problem.b_rounding, alpha)
    check_gpu(out.double().cpu().numpy(), NUMPY_OF[out.dtype], ref.cpu().numpy(),
              mag.cpu().numpy(), k, problem.acc_bits, problem.acc_k, rounded)


SHAPES = [(1, 64, 128), (7, 136, 192), (65, 264, 320), (129, 512, 1024), (300, 72, 512)]


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("a_dt,b_dt,d_dt", [
    (torch.bfloat16, torch.bfloat16, torch.bfloat16), (torch.float16, torch.float16, torch.float16),
    (torch.bfloat16, torch.bfloat16, torch.float32), (E4M3, E4M3, torch.bfloat16),
    (E4M3, E5M2, torch.float32)])
def test_standard(registry, gen, m, n, k, a_dt, b_dt, d_dt):
    a, b = values(gen, (m, k), a_dt), values(gen, (n, k), b_dt)
    out = poisoned((m, n), d_dt)
    assert tilepipe.matmul(a, b, out=out, alpha=0.75, registry=registry) is out
    _, problem = describe(registry, "standard", m, n, k, a_dt, b_dt, d_dt)
    judge(out, a.double(), b.double(), problem, k, alpha=0.75)


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("d_dt", [torch.bfloat16, torch.float32])
def test_blockwise_fp8(registry, gen, m, n, k, d_dt):
    desc, problem = describe(registry, "blockwise_fp8", m, n, k, E4M3, E4M3, d_dt)
    (blocks, am), b_shape = shape_of(desc.a_scale), shape_of(desc.b_scale)
    assert am == m and b_shape == (math.ceil(n / 128), blocks)
    a, b = values(gen, (m, k), E4M3), values(gen, (n, k), E4M3)
    # a_scale's rows padded to 16 bytes (the GPU's rule), as DeepGEMM pads them.
    a_scale = torch.full((blocks, -(-m // 4) * 4), float("nan"), device="cuda")[:, :m]
    a_scale.copy_(2.0 ** torch.randint(-8, 8, (blocks, m), generator=gen, device="cuda"))
    b_scale = 2.0 ** torch.randint(-8, 8, b_shape, generator=gen, device="cuda").float()
    out = poisoned((m, n), d_dt)
    tilepipe.matmul(a, b, payload="blockwise_fp8", a_scale=a_scale, b_scale=b_scale, out=out,
                    registry=registry)
    kb = torch.arange(k, device="cuda") // 128
    a_deq = a.double() * a_scale.double()[kb, :].T
    b_deq = b.double() * b_scale.double()[torch.arange(n, device="cuda")[:, None] // 128, kb[None, :]]
    judge(out, a_deq, b_deq, problem, k)


def _mx_scales(gen, rows, k, tiled):
    """MXFP8 scales 2^-2 .. 2^2 of [rows, k/32] as (the operand: ue8m0 rows
    padded to 16 bytes, or tilepipe.SF128x4 of raw codes; their values)."""
    cols = k // 32
    codes = torch.randint(125, 130, (rows, cols), generator=gen, device="cuda", dtype=torch.uint8)
    vals = 2.0 ** (codes.double() - 127)
    if tiled:
        data = torch.from_numpy(sf_128x4(codes.cpu().numpy())).cuda()
        return tilepipe.SF128x4(data, rows, cols), vals
    padded = torch.full((rows, -(-cols // 16) * 16), 0xFF, dtype=torch.uint8, device="cuda")
    padded[:, :cols] = codes
    return padded[:, :cols].view(torch.float8_e8m0fnu), vals


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("a_dt,b_dt", [(E4M3, E4M3), (E5M2, E4M3), (torch.bfloat16, E4M3),
                                       (torch.bfloat16, E5M2)])
@pytest.mark.parametrize("tiled", [False, True])
def test_block_scaled_mxfp8(registry, gen, m, n, k, a_dt, b_dt, tiled):
    """W8A8 (fp8 A with its scales) and W8A16 (bf16 A, no a_scale)."""
    desc, problem = describe(registry, "block_scaled", m, n, k, a_dt, b_dt, torch.bfloat16)
    assert shape_of(desc.b_scale) == (n, k // 32)
    a, b = values(gen, (m, k), a_dt), values(gen, (n, k), b_dt)
    g = torch.arange(k, device="cuda") // 32
    b_scale, b_sv = _mx_scales(gen, n, k, tiled)
    a_scale, a_deq, a_el = None, a.double(), None
    if a_dt != torch.bfloat16:
        assert shape_of(desc.a_scale) == (m, k // 32)
        a_scale, a_sv = _mx_scales(gen, m, k, tiled)
        a_el = a_sv[:, g]
        a_deq = a_deq * a_el
    else:
        assert desc.a_scale.dtype == dtypes.NONE
    out = poisoned((m, n), torch.bfloat16)
    tilepipe.matmul(a, b, payload="block_scaled", a_scale=a_scale, b_scale=b_scale, out=out,
                    registry=registry)
    judge(out, a_deq, b.double() * b_sv[:, g], problem, k, scales=(a_el, b_sv[:, g]))


def test_residual_c_aliasing_out(registry, gen):
    m, n, k = 65, 136, 192
    a, b = values(gen, (m, k), torch.bfloat16), values(gen, (n, k), torch.bfloat16)
    out = values(gen, (m, n), torch.bfloat16)
    c = out.clone()
    tilepipe.matmul(a, b, epilogue="residual", c=out, alpha=-1.5, beta=0.75, out=out,
                    registry=registry)
    _, problem = describe(registry, "standard", m, n, k, torch.bfloat16, torch.bfloat16,
                          torch.bfloat16)
    judge(out, a.double(), b.double(), problem, k, alpha=-1.5, beta=0.75, c=c)


def test_strided_views(registry, gen):
    """Rows sliced out of wider buffers pass their row strides; a weight held
    transposed (w_t = w.t(), [K, N], for x @ w_t) is passed as w_t.t(), the
    [N, K] view with contiguous rows, with no copy; D a view whose row
    padding is never written. A view whose rows are not contiguous (the
    [N, K] transpose of a contiguous [K, N]) is refused, nothing written."""
    m, n, k = 33, 136, 192
    w = values(gen, (n + 8, k), torch.bfloat16)[4:n + 4]
    w_t = w.t()
    x = values(gen, (m, k + 16), torch.bfloat16)[:, 8:k + 8]
    wide = poisoned((m, n + 8), torch.float32)
    out = wide[:, :n]
    tilepipe.matmul(x, w_t.t(), out=out, registry=registry)
    _, problem = describe(registry, "standard", m, n, k, torch.bfloat16, torch.bfloat16,
                          torch.float32)
    judge(out, x.double(), w.double(), problem, k)
    assert wide[:, n:].isnan().all()
    wide.fill_(float("nan"))
    column_major = w.t().contiguous().t()  # [N, K], stride (1, N)
    with pytest.raises(tilepipe.Error, match="stride"):
        tilepipe.matmul(x, column_major, out=out, registry=registry)
    torch.cuda.synchronize()
    assert wide.isnan().all()


def test_side_stream_keeps_order(registry, gen):
    """On a side stream, the run sees what that stream wrote before it and
    what follows sees the run's D; the default stream is not used."""
    m, n, k = 129, 264, 1024
    src, w = values(gen, (m, k), torch.bfloat16), values(gen, (n, k), torch.bfloat16)
    x = torch.zeros_like(src)
    out = poisoned((m, n), torch.float32)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)  # ~tens of ms: a run on another stream would read zeros
        x.copy_(src)
        tilepipe.matmul(x, w, out=out, registry=registry)
        doubled = out * 2
    torch.cuda.current_stream().wait_stream(side)
    _, problem = describe(registry, "standard", m, n, k, torch.bfloat16, torch.bfloat16,
                          torch.float32)
    judge(out, src.double(), w.double(), problem, k)
    assert torch.equal(doubled, out * 2)


def test_each_stream_its_own_plan(registry, gen):
    m, n, k = 17, 72, 64
    a, b = values(gen, (m, k), torch.bfloat16), values(gen, (n, k), torch.bfloat16)
    tilepipe.matmul(a, b, alpha=0.375, registry=registry)
    misses = registry.plans.misses
    tilepipe.matmul(a, b, alpha=0.375, registry=registry)
    assert registry.plans.misses == misses
    with torch.cuda.stream(torch.cuda.Stream()):
        tilepipe.matmul(a, b, alpha=0.375, registry=registry)
    assert registry.plans.misses == misses + 1


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="one GPU")
def test_every_device(registry, gen):
    """Tensors of each GPU run there, on that device's current stream,
    whichever device is current; tensors of two devices are refused."""
    m, n, k = 65, 136, 192
    _, problem = describe(registry, "standard", m, n, k, torch.bfloat16, torch.bfloat16,
                          torch.bfloat16)
    results = []
    with torch.cuda.device(0):
        for _ in range(2):  # the first call plans, the second runs the cached call
            for i in range(torch.cuda.device_count()):
                dev = torch.device("cuda", i)
                a = values(gen, (m, k), torch.bfloat16, dev)
                b = values(gen, (n, k), torch.bfloat16, dev)
                y = tilepipe.matmul(a, b, registry=registry)
                assert y.device == dev and torch.cuda.current_device() == 0
                results.append((y, a, b))
    for y, a, b in results:
        judge(y, a.double(), b.double(), problem, k)
    a0, b1 = results[0][1], results[1][2]
    out = poisoned((m, n), torch.bfloat16, a0.device)
    with pytest.raises(tilepipe.InvalidArgumentError, match="cuda:0, cuda:1"):
        tilepipe.matmul(a0, b1, out=out, registry=registry)
    assert out.isnan().all()


def _graph_case(gen):
    m, n, k = 7, 264, 320
    return (values(gen, (m, k), E4M3), values(gen, (n, k), E4M3), (m, n, k))


def test_cuda_graph_capture_and_replay(registry, gen):
    """A warm-up on the capturing stream makes the plan; capture records the
    launch (and D's allocation, from the graph's pool); replay recomputes
    from what the static inputs hold then."""
    x, w, (m, n, k) = _graph_case(gen)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        tilepipe.matmul(x, w, alpha=0.5, registry=registry)  # warm-up: the plan of stream s
    torch.cuda.current_stream().wait_stream(s)
    misses = registry.plans.misses
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        y = tilepipe.matmul(x, w, alpha=0.5, registry=registry)
    assert registry.plans.misses == misses
    _, problem = describe(registry, "standard", m, n, k, E4M3, E4M3, torch.bfloat16)
    for _ in range(3):
        x.copy_(values(gen, (m, k), E4M3))
        y.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        judge(y, x.double(), w.double(), problem, k, alpha=0.5)


def test_capture_without_warm_up_is_refused(registry, gen):
    x, w, _ = _graph_case(gen)
    g = torch.cuda.CUDAGraph()
    with pytest.raises(tilepipe.InvalidArgumentError, match="capturing a CUDA graph"):
        with torch.cuda.graph(g):
            tilepipe.matmul(x, w, alpha=0.3125, registry=registry)


def test_torch_compile_fullgraph(gen):
    """torch.ops.tilepipe.matmul (the default registry) traced whole by
    torch.compile, between torch ops that inductor fuses around it."""
    m, n, k = 65, 136, 192
    x, w = values(gen, (m, k), torch.bfloat16), values(gen, (n, k), torch.bfloat16)
    xq, wq = values(gen, (m, k), E4M3), values(gen, (n, k), E4M3)

    def layer(x, w, xq, wq):
        y = torch.ops.tilepipe.matmul(x * 2, w, alpha=0.5)
        z = torch.ops.tilepipe.matmul(xq, wq, "standard", "store", out_dtype=torch.float32)
        return torch.relu(y), z + 1

    compiled = torch.compile(layer, fullgraph=True)
    got, want = compiled(x, w, xq, wq), layer(x, w, xq, wq)
    assert got[0].dtype == torch.bfloat16 and got[1].dtype == torch.float32
    for g_, w_ in zip(got, want):
        assert torch.equal(g_, w_)


def test_torch_compile_reduce_overhead(gen):
    """mode="reduce-overhead" warms up, then captures on the same stream of
    its own: the plan the warm-up made serves the capture."""
    m, n, k = 7, 136, 192
    w = values(gen, (n, k), torch.bfloat16)
    f = torch.compile(lambda x: torch.ops.tilepipe.matmul(x, w) * 3, mode="reduce-overhead",
                      fullgraph=True)
    for _ in range(4):
        x = values(gen, (m, k), torch.bfloat16)
        got = f(x).clone()
        assert torch.equal(got, tilepipe.matmul(x, w) * 3)


def test_refusals_leave_out_untouched(registry, gen):
    m, n, k = 17, 72, 64
    a, b = values(gen, (m, k), torch.bfloat16), values(gen, (n, k), torch.bfloat16)
    out = poisoned((m, n), torch.bfloat16)
    cases = [
        ("a CPU tensor among CUDA ones", dict(b=b.cpu()), tilepipe.InvalidArgumentError, "cpu"),
        ("the CPU backend", dict(backend="cpu"), tilepipe.InvalidArgumentError, "CPU backend"),
        ("A bf16 x B f16", dict(b=b.half()), tilepipe.Error, "f16"),
        ("A misaligned", dict(a=torch.cat([a.flatten(), a.flatten()[:1]])[1:].view(m, k)),
         tilepipe.InvalidArgumentError, "aligned"),
        ("out misaligned", dict(out=poisoned((m * n + 1,), torch.bfloat16)[1:].view(m, n)),
         tilepipe.InvalidArgumentError, "aligned"),
        ("out of another dtype", dict(out_dtype=torch.float32), tilepipe.InvalidArgumentError,
         "out_dtype"),
        ("a row stride that is no multiple of 16 bytes",
         dict(a=values(gen, (m, k + 1), torch.bfloat16)[:, :k]), tilepipe.Error, "16 bytes"),
    ]
    for what, change, exc, text in cases:
        args = dict(a=a, b=b, out=out)
        args.update(change)
        target = args["out"]
        with pytest.raises(exc, match=text):
            tilepipe.matmul(args.pop("a"), args.pop("b"), registry=registry, **args)
        torch.cuda.synchronize()
        assert target.isnan().all(), what
