"""python/tests/test_payloads.py: every payload of the build's registry on
the CPU backend through tilepipe.matmul, against the float64 reference of
the same quantized inputs (reference.py), on ragged shapes, D poisoned
with NaN before each call and every element judged: standard over its
dtype pairs and D's dtypes, blockwise_fp8 with strided (padded) scales,
block_scaled's MXFP8 W8A8 and W8A16 and NVFP4 in both scale layouts, the
4-bit weight modes (W4A16, W4A8, W4A4) over NVFP4 and MXFP4 B, and
the residual epilogue with C, C aliasing D."""
import math

import numpy as np
import pytest

import tilepipe
from reference import (BF16, E2M1, E4M3, E5M2, F16, F32, UE8M0, check, expect, f64, operand,
                       poisoned, sf_128x4)

SHAPES = [(1, 1, 1), (7, 17, 65), (17, 129, 7), (65, 7, 129), (129, 65, 17)]


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("a_dt,b_dt,d_dt", [
    (BF16, BF16, BF16), (F16, F16, F16), (BF16, BF16, F32), (F16, F16, BF16),
    (E4M3, E4M3, BF16), (E4M3, E5M2, F32), (E5M2, E4M3, F16), (E5M2, E5M2, BF16)])
def test_standard(registry, rng, m, n, k, a_dt, b_dt, d_dt):
    a, b = operand(rng, (m, k), a_dt), operand(rng, (n, k), b_dt)
    out = poisoned((m, n), d_dt)
    assert tilepipe.matmul(a, b, out=out, registry=registry) is out
    check(out, *expect(f64(a), f64(b)), k)


def test_default_out_dtype(registry, rng):
    x, w = operand(rng, (7, 65), E4M3), operand(rng, (17, 65), E4M3)
    y = tilepipe.matmul(x, w, registry=registry)
    assert y.dtype == BF16 and y.shape == (7, 17)
    check(y, *expect(f64(x), f64(w)), 65)
    assert tilepipe.matmul(x.astype(F16), w.astype(F16), registry=registry).dtype == F16


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 129, 300), (65, 257, 129), (129, 17, 640)])
@pytest.mark.parametrize("d_dt", [BF16, F32])
def test_blockwise_fp8(registry, rng, m, n, k, d_dt):
    blocks = math.ceil(k / 128)
    a, b = operand(rng, (m, k), E4M3), operand(rng, (n, k), E4M3)
    # Scales over 2^[-8, 8), a_scale's rows padded (stride M + 3) as DeepGEMM pads them.
    a_scale = np.full((blocks, m + 3), np.nan, np.float32)[:, :m]
    a_scale[:] = 2.0 ** rng.integers(-8, 8, size=(blocks, m))
    b_scale = (2.0 ** rng.integers(-8, 8, size=(math.ceil(n / 128), blocks))).astype(np.float32)
    out = poisoned((m, n), d_dt)
    tilepipe.matmul(a, b, payload="blockwise_fp8", a_scale=a_scale, b_scale=b_scale, out=out,
                    registry=registry)
    kb = np.arange(k) // 128
    a_deq = f64(a) * a_scale[kb, :].T
    b_deq = f64(b) * b_scale[np.arange(n)[:, None] // 128, kb[None, :]]
    check(out, *expect(a_deq, b_deq), k)


def _ue8m0(rng, shape):
    """MXFP8 scales 2^-2 .. 2^2 as raw ue8m0 codes and their values."""
    codes = rng.integers(125, 130, size=shape).astype(np.uint8)
    return codes, 2.0 ** (codes.astype(np.float64) - 127)


def _ue4m3(rng, shape):
    """NVFP4 scales 0.25 .. 3.75 (2^e (1 + m/8), e in [-2, 2)) as raw ue4m3
    codes (e4m3fn's bit patterns of positive values) and their values."""
    v = 2.0 ** rng.integers(-2, 2, size=shape) * (1 + rng.integers(0, 8, size=shape) / 8)
    return v.astype(E4M3).view(np.uint8), v


def _scales(codes, rows, cols, tiled, typed):
    if tiled:
        return tilepipe.SF128x4(sf_128x4(codes), rows, cols)
    return codes.view(UE8M0) if typed else codes


@pytest.mark.parametrize("m,n,k", [(1, 1, 32), (7, 129, 96), (129, 17, 160), (65, 130, 32)])
@pytest.mark.parametrize("a_dt,b_dt", [(E4M3, E4M3), (E4M3, E5M2), (E5M2, E5M2),
                                       (BF16, E4M3), (BF16, E5M2)])
@pytest.mark.parametrize("tiled", [False, True])
def test_block_scaled_mxfp8(registry, rng, m, n, k, a_dt, b_dt, tiled):
    a, b = operand(rng, (m, k), a_dt), operand(rng, (n, k), b_dt)
    g = np.arange(k) // 32
    b_codes, b_sv = _ue8m0(rng, (n, k // 32))
    a_scale, a_deq = None, f64(a)
    if a_dt != BF16:  # W8A8; bf16 A (W8A16) takes no a_scale
        a_codes, a_sv = _ue8m0(rng, (m, k // 32))
        a_scale = _scales(a_codes, m, k // 32, tiled, typed=True)
        a_deq = a_deq * a_sv[:, g]
    out = poisoned((m, n), BF16)
    tilepipe.matmul(a, b, payload="block_scaled", a_scale=a_scale,
                    b_scale=_scales(b_codes, n, k // 32, tiled, typed=False), out=out,
                    registry=registry)
    check(out, *expect(a_deq, f64(b) * b_sv[:, g]), k)


@pytest.mark.parametrize("m,n,k", [(1, 1, 16), (7, 129, 48), (129, 17, 160)])
@pytest.mark.parametrize("tiled", [False, True])
def test_block_scaled_nvfp4(registry, rng, m, n, k, tiled):
    a, b = operand(rng, (m, k), E2M1), operand(rng, (n, k), E2M1)
    (a_codes, a_sv), (b_codes, b_sv) = _ue4m3(rng, (m, k // 16)), _ue4m3(rng, (n, k // 16))
    g = np.arange(k) // 16
    out = poisoned((m, n), F32)
    tilepipe.matmul(a, b, payload="block_scaled", a_scale=_scales(a_codes, m, k // 16, tiled, False),
                    b_scale=_scales(b_codes, n, k // 16, tiled, False), out=out,
                    registry=registry, alpha=0.5)
    check(out, *expect(f64(a) * a_sv[:, g], f64(b) * b_sv[:, g], alpha=0.5), k)


@pytest.mark.parametrize("m,n,k", [(1, 1, 32), (7, 129, 96), (65, 17, 160)])
@pytest.mark.parametrize("a_dt", [BF16, E4M3, E2M1])
@pytest.mark.parametrize("mxfp4", [False, True])
def test_block_scaled_fp4_weights(registry, rng, m, n, k, a_dt, mxfp4):
    """4-bit B with bf16 A (W4A16), MXFP8 A (W4A8) or A in B's format (W4A4):
    NVFP4 B from raw ue4m3 codes (the payload's default for e2m1), MXFP4 B
    from ue8m0-typed scales."""
    if a_dt == E2M1 and not mxfp4:
        pytest.skip("NVFP4 W4A4: test_block_scaled_nvfp4")
    vec = 32 if mxfp4 else 16
    a, b = operand(rng, (m, k), a_dt), operand(rng, (n, k), E2M1)
    g = np.arange(k) // vec
    if mxfp4:
        b_codes, b_sv = _ue8m0(rng, (n, k // 32))
        b_scale = b_codes.view(UE8M0)
    else:
        b_codes, b_sv = _ue4m3(rng, (n, k // 16))
        b_scale = b_codes
    a_scale, a_deq = None, f64(a)
    if a_dt != BF16:  # MXFP8 A (W4A8), or MXFP4 A (W4A4): ue8m0 per 32
        a_codes, a_sv = _ue8m0(rng, (m, k // 32))
        a_scale = a_codes.view(UE8M0)
        a_deq = a_deq * a_sv[:, np.arange(k) // 32]
    out = poisoned((m, n), BF16)
    tilepipe.matmul(a, b, payload="block_scaled", a_scale=a_scale, b_scale=b_scale, out=out,
                    registry=registry)
    check(out, *expect(a_deq, f64(b) * b_sv[:, g]), k)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (17, 65, 129), (129, 7, 17)])
@pytest.mark.parametrize("d_dt", [BF16, F16, F32])
def test_residual(registry, rng, m, n, k, d_dt):
    a, b = operand(rng, (m, k), BF16), operand(rng, (n, k), BF16)
    c = operand(rng, (m, n), d_dt)
    out = poisoned((m, n), d_dt)
    tilepipe.matmul(a, b, epilogue="residual", c=c, alpha=-1.5, beta=0.75, out=out,
                    registry=registry)
    check(out, *expect(f64(a), f64(b), alpha=-1.5, beta=0.75, c=c), k)


def test_residual_c_aliasing_out(registry, rng):
    m, n, k = 65, 17, 129
    a, b = operand(rng, (m, k), F16), operand(rng, (n, k), F16)
    out = operand(rng, (m, n), BF16)
    c = out.copy()
    tilepipe.matmul(a, b, epilogue="residual", c=out, beta=1.0, out=out, registry=registry)
    check(out, *expect(f64(a), f64(b), beta=1.0, c=c), k)


def test_strided_views(registry, rng):
    """Row-strided views of wider arrays: their strides pass through, and
    D's row padding is never written."""
    m, n, k = 17, 65, 129
    a = operand(rng, (m, k + 5), BF16)[:, 3:k + 3]
    b = operand(rng, (n + 2, k + 8), BF16)[1:n + 1, :k]
    wide = poisoned((m, n + 7), F32)
    out = wide[:, :n]
    tilepipe.matmul(a, b, out=out, registry=registry)
    check(out, *expect(f64(a), f64(b)), k)
    assert np.isnan(wide[:, n:]).all()
