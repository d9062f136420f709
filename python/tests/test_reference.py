"""python/tests/test_reference.py: the GPU judge (reference.check_gpu),
which test_torch_cuda.py holds every GPU result to, on results made here:
the reference itself rounded to D passes, and so does a result within the
modelled error of a bf16 wgmma sum; a 1% error in one column (a scale
applied to the wrong element), a sign flip, a NaN (an unwritten element)
each fail.

The operands' rounding (reference.rounding, as tools/reference/rounding.c):
the small problem tests/test_ref_rounding.c works by hand gives the same
bounds and spreads, and a D off by 99% of each element's widened bound
passes, 101% fails, and without the rounding it fails. block_scaled's
MXFP8 W8A8, described by the library (its roundings), folded here in
numpy as docs/payloads.md defines the fold: the folded problem's exact D
passes against the problem as drawn (the payload's scale values, and
codes 40 apart, where it fails without the rounding)."""
import math
import types

import numpy as np
import pytest

from reference import (BF16, E4M3, E5M2, F32, check_gpu, describe, expect, rounding)
from tilepipe import dtypes

ACC_BITS_16, ACC_BITS_FP8 = 22, 14


def _problem(rng, m=33, n=48, k=512):
    a, b = rng.standard_normal((m, k)), rng.standard_normal((n, k))
    ref, mag = expect(a, b)
    return ref, mag, k


@pytest.mark.parametrize("d_dt,acc_bits,acc_k", [(BF16, ACC_BITS_16, 0), (F32, ACC_BITS_16, 0),
                                                 (BF16, ACC_BITS_FP8, 128)])
def test_right_results_pass(rng, d_dt, acc_bits, acc_k):
    ref, mag, k = _problem(rng)
    rounded = ref.astype(d_dt).astype(np.float64)
    check_gpu(rounded, d_dt, ref, mag, k, acc_bits, acc_k)
    # A random-sign error of two units of the running sum on a term of the
    # sum's typical size (mag / sqrt(K)), as a truncating sum leaves.
    noisy = ref + rng.choice([-1, 1], ref.shape) * 2.0 * 2.0**-acc_bits * mag / np.sqrt(k)
    check_gpu(noisy.astype(d_dt).astype(np.float64), d_dt, ref, mag, k, acc_bits, acc_k)


@pytest.mark.parametrize("fault", ["scale", "sign", "nan"])
def test_wrong_results_fail(rng, fault):
    ref, mag, k = _problem(rng)
    got = ref.copy()
    if fault == "scale":
        got[:, 5] *= 1.01
    elif fault == "sign":
        got[3, 7] = -got[3, 7]
    else:
        got[0, 0] = np.nan
    with pytest.raises(AssertionError):
        check_gpu(got.astype(F32).astype(np.float64), F32, ref, mag, k, ACC_BITS_16, 0)


def _hand():
    """tests/test_ref_rounding.c's problem: A' and B' scaled, each element's
    scale, the roundings."""
    a = np.array([[1, 3, 5, 7], [2, 4, 6, 8]], float)
    b = np.array([[2, -1, 2, -1], [-1, 2, -1, 2], [2, -1, 2, -1]], float)
    sa = np.repeat(np.array([[1, 0.5], [2, 0.25]]), 2, axis=1)
    sb = np.repeat(np.array([[1, 2], [0.5, 8], [4, 1]]), 2, axis=1)
    ra, rb = types.SimpleNamespace(rows=1, k=4, exp=0), types.SimpleNamespace(rows=2, k=2, exp=0)
    return a * sa, sa, ra, b * sb, sb, rb


def test_rounding_by_hand():
    bound, spread = rounding(*_hand(), alpha=-2.0)
    assert bound[0, 0] == 46 and bound[1, 1] == 12 and bound[1, 2] == 2
    assert spread[0, 0] == pytest.approx(2 * math.sqrt(277), rel=1e-12)
    assert spread[1, 1] == pytest.approx(2 * math.sqrt(20), rel=1e-12)
    a, sa, ra, b, sb, _ = _hand()
    exact = types.SimpleNamespace(rows=0, k=0, exp=0)
    assert rounding(a, sa, ra, b, sb, exact, alpha=-2.0)[0][0, 0] == 6
    assert not rounding(a, sa, exact, b, sb, exact)[0].any()


@pytest.mark.parametrize("share,passes", [(0.99, True), (1.01, False)])
def test_rounding_widens_the_bound(share, passes):
    a, sa, ra, b, sb, rb = _hand()
    ref, mag = expect(a, b, alpha=-2.0)
    bound, spread = rounding(a, sa, ra, b, sb, rb, alpha=-2.0)
    u_acc, f32 = 2.0**-14, 2.0**-24
    g = 16 * u_acc + (math.ceil(4 / 64) + 16) * f32
    rho = np.minimum(np.abs(ref) / mag, 1)
    whole = f32 * np.abs(ref) + (1 + f32) * (g * mag + 0.5 * 4 * u_acc * rho**2 * np.abs(ref) +
                                             bound) + 2.0**-150
    got = (ref + share * whole).astype(F32).astype(np.float64)
    if passes:
        check_gpu(got, F32, ref, mag, 4, 14, 128, (bound, spread))
    else:
        with pytest.raises(AssertionError):
            check_gpu(got, F32, ref, mag, 4, 14, 128, (bound, spread))
    with pytest.raises(AssertionError):
        check_gpu(got, F32, ref, mag, 4, 14, 128)


def _fold(x, dt, codes, run):
    """x (values of fp8 dtype dt as float64) folded against codes as the
    prologue does: per 128 of K, runs of `run` rows refer to their largest
    code; a group d below it is shifted by 2^-d and rounded to dt; the
    values returned in the groups' own scale."""
    rows, k = x.shape
    out = x.copy()
    for g0 in range(0, k // 32, 4):
        for r0 in range(0, rows, run):
            block = codes[r0:r0 + run, g0:g0 + 4].astype(int)
            d = np.repeat(block.max() - block, 32, axis=1)
            part = out[r0:r0 + run, 32 * g0:32 * g0 + 32 * block.shape[1]]
            part[:] = (part * 2.0**-d).astype(dt).astype(np.float64) * 2.0**d
    return out


@pytest.mark.parametrize("m,n,k,wide", [(7, 129, 128, False), (7, 136, 192, False),
                                        (33, 200, 1120, True)])
@pytest.mark.parametrize("a_dt,b_dt", [(E4M3, E4M3), (E5M2, E4M3), (E4M3, E5M2)])
def test_folded_mxfp8_passes(registry, rng, m, n, k, wide, a_dt, b_dt):
    code = {E4M3: dtypes.E4M3, E5M2: dtypes.E5M2}
    _, problem = describe(registry, "block_scaled", m, n, k, code[a_dt], code[b_dt], dtypes.F32)
    assert problem.a_rounding.rows == 1 and problem.b_rounding.rows == 128
    a = (rng.standard_normal((m, k)) * 2.0 ** rng.integers(-2, 3, (m, k))).astype(a_dt)
    b = (rng.standard_normal((n, k)) * 2.0 ** rng.integers(-2, 3, (n, k))).astype(b_dt)
    if wide:  # groups 40 codes apart in turn, rows a code or two apart
        g = np.arange(k // 32)
        a_codes = 127 - 40 * (g % 2)[None, :] + (np.arange(m) % 3 - 1)[:, None]
        b_codes = 127 - 40 * ((g + 1) % 2)[None, :] + (np.arange(n) % 5 - 2)[:, None]
    else:  # the payload's values, 2^-2 .. 2^2
        a_codes, b_codes = rng.integers(125, 130, (m, k // 32)), rng.integers(125, 130, (n, k // 32))
    sa = np.repeat(2.0 ** (a_codes - 127.0), 32, axis=1)
    sb = np.repeat(2.0 ** (b_codes - 127.0), 32, axis=1)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref, mag = expect(a64 * sa, b64 * sb)
    folded = (_fold(a64, a_dt, a_codes, 1) * sa) @ (_fold(b64, b_dt, b_codes, 128) * sb).T
    got = folded.astype(F32).astype(np.float64)
    rounded = rounding(a64 * sa, sa, problem.a_rounding, b64 * sb, sb, problem.b_rounding)
    assert rounded[0].max() > 0
    check_gpu(got, F32, ref, mag, k, problem.acc_bits, problem.acc_k, rounded)
    if wide:
        with pytest.raises(AssertionError):
            check_gpu(got, F32, ref, mag, k, problem.acc_bits, problem.acc_k)
