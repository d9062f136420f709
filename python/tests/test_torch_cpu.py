"""python/tests/test_torch_cpu.py: tilepipe on torch CPU tensors (skipped
without torch): they run on the CPU backend as NumPy arrays do, judged
against the float64 reference (reference.py) with D poisoned; torch's own
dtypes (bfloat16, float8_e4m3fn, float8_e8m0fnu scales) and views; and
torch.ops.tilepipe.matmul, checked by torch.library.opcheck (schema, fake
implementation, tracing) and run under torch.compile(fullgraph=True). The
CUDA side is test_torch_cuda.py."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tilepipe  # noqa: E402
from reference import BF16, check, expect  # noqa: E402


@pytest.fixture
def gen(rng):
    g = torch.Generator()
    g.manual_seed(int(rng.integers(2**31)))
    return g


def values(gen, shape, dtype):
    x = torch.randn(shape, generator=gen) * 2.0 ** torch.randint(-2, 3, shape, generator=gen)
    return x.to(dtype)


def f64(t):
    return t.float().numpy().astype(np.float64)


def d_of(t):
    """D as a NumPy array of its own dtype (bf16 through ml_dtypes), for check()."""
    return t.float().numpy().astype(BF16) if t.dtype == torch.bfloat16 else t.numpy()


def poisoned(shape, dtype):
    return torch.full(shape, float("nan"), dtype=dtype)


@pytest.mark.parametrize("a_dt,b_dt,d_dt", [
    (torch.bfloat16, torch.bfloat16, torch.bfloat16), (torch.float16, torch.float16, torch.float32),
    (torch.float8_e4m3fn, torch.float8_e5m2, torch.bfloat16)])
def test_standard(registry, gen, a_dt, b_dt, d_dt):
    m, n, k = 17, 65, 129
    a, b = values(gen, (m, k), a_dt), values(gen, (n, k), b_dt)
    out = poisoned((m, n), d_dt)
    assert tilepipe.matmul(a, b, out=out, alpha=0.5, registry=registry) is out
    check(d_of(out), *expect(f64(a), f64(b), alpha=0.5), k)


def test_new_out_and_out_dtype(registry, gen):
    a, b = values(gen, (7, 33), torch.float8_e4m3fn), values(gen, (9, 33), torch.float8_e4m3fn)
    y = tilepipe.matmul(a, b, registry=registry)
    assert y.dtype == torch.bfloat16 and y.shape == (7, 9) and y.device.type == "cpu"
    z = tilepipe.matmul(a, b, out_dtype=torch.float32, registry=registry)
    assert z.dtype == torch.float32
    check(d_of(z), *expect(f64(a), f64(b)), 33)


def test_blockwise_and_mxfp8_scales(registry, gen):
    m, n, k = 7, 129, 300
    a, b = values(gen, (m, k), torch.float8_e4m3fn), values(gen, (n, k), torch.float8_e4m3fn)
    blocks = -(-k // 128)
    a_scale = 2.0 ** torch.randint(-8, 8, (blocks, m), generator=gen).float()
    b_scale = 2.0 ** torch.randint(-8, 8, (-(-n // 128), blocks), generator=gen).float()
    out = poisoned((m, n), torch.float32)
    tilepipe.matmul(a, b, payload="blockwise_fp8", a_scale=a_scale, b_scale=b_scale, out=out,
                    registry=registry)
    kb = np.arange(k) // 128
    a_deq = f64(a) * a_scale.numpy()[kb, :].T
    b_deq = f64(b) * b_scale.numpy()[np.arange(n)[:, None] // 128, kb[None, :]]
    check(d_of(out), *expect(a_deq, b_deq), k)

    k = 96
    a, b = values(gen, (m, k), torch.bfloat16), values(gen, (n, k), torch.float8_e4m3fn)
    codes = torch.randint(125, 130, (n, k // 32), generator=gen, dtype=torch.uint8)
    out = poisoned((m, n), torch.bfloat16)
    tilepipe.matmul(a, b, payload="block_scaled", b_scale=codes.view(torch.float8_e8m0fnu),
                    out=out, registry=registry)
    b_deq = f64(b) * 2.0 ** (codes.numpy().astype(np.float64) - 127)[:, np.arange(k) // 32]
    check(d_of(out), *expect(f64(a), b_deq), k)


def test_residual_aliasing_and_views(registry, gen):
    m, n, k = 17, 65, 129
    a = values(gen, (m, k + 5), torch.bfloat16)[:, 3:k + 3]
    w_t = values(gen, (n + 2, k), torch.bfloat16)[1:n + 1].t()  # a weight held as [K, N]
    out = values(gen, (m, n), torch.float32)
    c = out.clone()
    tilepipe.matmul(a, w_t.t(), epilogue="residual", c=out, beta=0.75, out=out, registry=registry)
    check(d_of(out), *expect(f64(a), f64(w_t.t()), beta=0.75, c=c.numpy()), k)


def test_repeated_calls_are_cached(registry, gen):
    """A call of the same description on fresh tensors reuses the first's
    plan and descriptor with the new pointers; another description (a
    stride, out_dtype) is another entry."""
    m, n, k = 9, 33, 65
    a, b = values(gen, (m, k), torch.bfloat16), values(gen, (n, k), torch.bfloat16)
    tilepipe.matmul(a, b, alpha=0.8125, registry=registry)
    misses, hits, calls = registry.plans.misses, registry.plans.hits, len(registry.plans.calls)
    for _ in range(2):
        a, b = values(gen, (m, k), torch.bfloat16), values(gen, (n, k), torch.bfloat16)
        out = poisoned((m, n), torch.bfloat16)
        assert tilepipe.matmul(a, b, alpha=0.8125, out=out, registry=registry) is out
        check(d_of(out), *expect(f64(a), f64(b), alpha=0.8125), k)
        y = tilepipe.matmul(a, b, alpha=0.8125, registry=registry)
        assert torch.equal(y, out) and y.is_contiguous() and y.data_ptr() != out.data_ptr()
    assert (registry.plans.misses, len(registry.plans.calls)) == (misses, calls + 1)
    assert registry.plans.hits == hits + 4
    wide = values(gen, (m, k + 7), torch.bfloat16)[:, :k]
    y = tilepipe.matmul(wide, b, alpha=0.8125, out_dtype=torch.float32, registry=registry)
    check(d_of(y), *expect(f64(wide), f64(b), alpha=0.8125), k)
    assert registry.plans.misses == misses + 1 and len(registry.plans.calls) == calls + 2


def test_repeats_refuse_what_the_first_call_would(registry, gen):
    """A repeat of a cached call refuses what a first call of the same
    arguments would, D untouched: an out over A (the same signature; the
    library's check on each run), an out that requires grad, a NumPy B, a
    tensor on another device (other signatures, described anew)."""
    m, n, k = 7, 24, 64
    a, b = values(gen, (m, k), torch.bfloat16), values(gen, (n, k), torch.bfloat16)
    out = poisoned((m, n), torch.bfloat16)
    for _ in range(2):
        tilepipe.matmul(a, b, out=out, alpha=1.5, registry=registry)
    check(d_of(out), *expect(f64(a), f64(b), alpha=1.5), k)

    def refused(cls, message, a, b, out, repeat):
        hits, before = registry.plans.hits, out.clone()
        with pytest.raises(cls, match=message):
            tilepipe.matmul(a, b, out=out, alpha=1.5, registry=registry)
        assert torch.equal(out.isnan(), before.isnan())
        assert torch.equal(out.nan_to_num(), before.nan_to_num())
        assert registry.plans.hits == hits + (1 if repeat else 0)

    shared = poisoned((m * k + m * n,), torch.bfloat16)
    shared[:m * k] = a.flatten()
    refused(tilepipe.InvalidArgumentError, "D overlaps A", shared[:m * k].view(m, k), b,
            shared[m * k - n:m * k - n + m * n].view(m, n), repeat=True)
    refused(tilepipe.InvalidArgumentError, "requires grad", a, b,
            poisoned((m, n), torch.bfloat16).requires_grad_(), repeat=False)
    refused(tilepipe.InvalidArgumentError, "not both", a, b.float().numpy(), out, repeat=False)
    refused(tilepipe.InvalidArgumentError, "cpu, meta", a, b.to("meta"), out, repeat=False)
    refused(tilepipe.UnsupportedError, "A is f32", a.float(), b, out, repeat=False)
    tilepipe.matmul(a, b, out=out, alpha=1.5, registry=registry)
    check(d_of(out), *expect(f64(a), f64(b), alpha=1.5), k)
    # An alpha tensor changed in place is the same key with another value:
    # such a call is never kept, each runs with the value it has then.
    alpha = torch.tensor(0.5)
    for value in (0.5, 2.0, 0.25):
        alpha.fill_(value)
        y = tilepipe.matmul(a, b, alpha=alpha, registry=registry)
        check(d_of(y), *expect(f64(a), f64(b), alpha=value), k)


def test_operator(registry, gen):
    """torch.ops.tilepipe.matmul: the same result as tilepipe.matmul, its
    fake implementation and schema checked by opcheck, traced whole by
    torch.compile."""
    x, w = values(gen, (7, 64), torch.bfloat16), values(gen, (16, 64), torch.bfloat16)
    want = tilepipe.matmul(x, w, alpha=2.0)
    assert torch.equal(torch.ops.tilepipe.matmul(x, w, alpha=2.0), want)
    torch.library.opcheck(torch.ops.tilepipe.matmul.default, (x, w), {"alpha": 2.0})
    # Schema checks compare inputs with allclose, which fp8 on the CPU lacks.
    xq, wq = x.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn)
    torch.library.opcheck(torch.ops.tilepipe.matmul.default, (xq, wq),
                          {"out_dtype": torch.float32},
                          test_utils=("test_faketensor", "test_aot_dispatch_dynamic"))
    f = torch.compile(lambda x, w: torch.ops.tilepipe.matmul(x, w, alpha=2.0) + 1,
                      fullgraph=True)
    assert torch.equal(f(x, w), want + 1)


def test_refusals(registry, gen):
    a, b = values(gen, (7, 64), torch.bfloat16), values(gen, (16, 64), torch.bfloat16)
    out = poisoned((7, 16), torch.bfloat16)
    with pytest.raises(tilepipe.InvalidArgumentError, match="not both"):
        tilepipe.matmul(a, b.float().numpy(), out=out, registry=registry)
    with pytest.raises(tilepipe.InvalidArgumentError, match="host memory"):
        tilepipe.matmul(a, b, out=out, backend="cuda", registry=registry)
    with pytest.raises(tilepipe.InvalidArgumentError, match="requires grad"):
        tilepipe.matmul(a, b, out=poisoned((7, 16), torch.float32).requires_grad_(),
                        registry=registry)
    with pytest.raises(tilepipe.UnsupportedError, match="int32"):
        tilepipe.matmul(a.int(), b, out=out, registry=registry)
    with pytest.raises(tilepipe.Error, match="bias"):
        tilepipe.matmul(a, b, bias=torch.zeros(16), out=out, registry=registry)
    assert out.isnan().all()
