"""python/tests/reference.py: the float64 reference and the bound a result
is judged by, as tools/reference/compare.c judges the CPU backend.

Quantized inputs are made here (values drawn, then rounded to the
operand's dtype) and dequantized in float64 exactly as docs/payloads.md
defines each payload's A' and B'. check() holds every element of D to

    |D - ref| <= u_out |ref| + (1 + u_out) g mag + eta_out,
    g = (K + 16) 2^-24,  mag = |alpha| sum_k |A'(m,k) B'(n,k)| + |beta C|

the classic bound of a sum rounded to f32 in any order (the CPU backend's
model, tilepipe/reference.h), with u_out and eta_out D's unit roundoff and
half its smallest subnormal; a NaN (the poison left where nothing was
written) fails it. check_gpu() holds a D of the CUDA backend to the GPU's
model (tp_ref_tolerance_for_gpu and tp_ref_compare, tools/reference/
compare.c, with the same constants): the payload's acc_bits and acc_k
(tp_problem_describe) in place of f32's 24 bits, per element and
normwise, and, where the payload's GPU route rounds the operands
(tp_problem's a_rounding, b_rounding: MXFP8 W8A8's fold), rounding()'s
bound per element and 4 times its spread normwise (tp_ref_rounding_at,
tools/reference/rounding.c). describe() asks the library for a payload's
description (tp_problem_describe: scale shapes, acc_bits, the roundings)."""
import ctypes
import math

import ml_dtypes
import numpy as np

from tilepipe import abi, library

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)
E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
E5M2 = np.dtype(ml_dtypes.float8_e5m2)
UE8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
E2M1 = np.dtype(ml_dtypes.float4_e2m1fn)

_OUTPUT = {BF16: (2.0**-8, 2.0**-134), F16: (2.0**-11, 2.0**-25), F32: (2.0**-24, 2.0**-150)}


def operand(rng, shape, dtype):
    """Random values of dtype: normal, spread over a few octaves (fp4: its
    whole code set, every code but -0)."""
    if dtype == E2M1:
        codes = rng.integers(0, 15, size=shape).astype(np.uint8)
        codes[codes == 8] = 15
        return codes.view(E2M1)
    return (rng.standard_normal(shape) * 2.0 ** rng.integers(-2, 3, size=shape)).astype(dtype)


def poisoned(shape, dtype):
    return np.full(shape, np.nan, dtype)


def f64(x):
    return np.asarray(x).astype(np.float64)


def expect(a, b, alpha=1.0, beta=0.0, c=None):
    """(ref, mag) of alpha * a @ b.T + beta * c over float64 operands."""
    ref = float(np.float32(alpha)) * (a @ b.T)
    mag = abs(float(np.float32(alpha))) * (np.abs(a) @ np.abs(b).T)
    if c is not None and beta != 0.0:
        ref = ref + float(np.float32(beta)) * f64(c)
        mag = mag + abs(float(np.float32(beta))) * np.abs(f64(c))
    return ref, mag


def _judge(got, ref, bound):
    bad = ~(np.abs(got - ref) <= bound)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise AssertionError(
            f"{int(bad.sum())} of {bad.size} elements outside their bound; first D[{i}][{j}] = "
            f"{got[i, j]!r}, reference {ref[i, j]!r}, bound {bound[i, j]:.3g}")


def check(d, ref, mag, k):
    u, eta = _OUTPUT[np.dtype(d.dtype)]
    g = (k + 16) * 2.0**-24
    _judge(f64(d), ref, u * np.abs(ref) + (1 + u) * g * mag + eta)


def describe(registry, payload, m, n, k, a, b, d):
    """(desc, problem) as tp_problem_describe fills them for the payload;
    a, b, d: dtype codes (tilepipe.dtypes)."""
    desc = abi.new_desc(m, n, k)
    desc.a.dtype, desc.b.dtype, desc.d.dtype = a, b, d
    problem = abi.Problem()
    problem.struct_size = ctypes.sizeof(abi.Problem)
    library.call("tp_problem_describe", registry.handle, payload.encode(), None,
                 ctypes.byref(desc), ctypes.byref(problem))
    return desc, problem


def _grid_distance(x, scale, rounding):
    """How far the GPU moves each element of x (float64, its scale applied)
    rounding it to the nearest multiple of 2^exp times the largest |scale|
    of its rows x k block (scale: each element's, float64 like x; rounding
    a tilepipe.abi.OperandRounding, rows 0: exact)."""
    if rounding.rows == 0:
        return np.zeros_like(x)
    rows, cols = x.shape
    br, bk = rounding.rows, rounding.k
    padded = np.zeros((-(-rows // br) * br, -(-cols // bk) * bk))
    padded[:rows, :cols] = np.abs(scale)
    top = padded.reshape(padded.shape[0] // br, br, padded.shape[1] // bk, bk).max(axis=(1, 3))
    step = np.repeat(np.repeat(top, br, axis=0), bk, axis=1)[:rows, :cols] * 2.0**rounding.exp
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(step > 0, np.abs(x - np.round(x / np.where(step > 0, step, 1)) * step), 0)


def rounding(a, a_scale, a_rounding, b, b_scale, b_rounding, alpha=1.0):
    """(bound, spread) of the GPU's rounding of the operands at each
    element of D, as tp_ref_rounding_at: with da, db how far each element
    of a and b (float64, scales applied; a_scale, b_scale each element's
    scale) moves and t = da |b| + db |a| + da db over k, bound = |alpha|
    sum t, spread = |alpha| sqrt(sum t^2)."""
    da, db = _grid_distance(a, a_scale, a_rounding), _grid_distance(b, b_scale, b_rounding)
    aa, bb = np.abs(a), np.abs(b)
    al = abs(float(np.float32(alpha)))
    bound = al * (da @ bb.T + aa @ db.T + da @ db.T)
    t2 = (da**2) @ (bb**2).T + (aa**2) @ (db**2).T + (da**2) @ (db**2).T + \
        2 * ((da * aa) @ (bb * db).T + (da**2) @ (bb * db).T + (aa * da) @ (db**2).T)
    return bound, al * np.sqrt(np.maximum(t2, 0))


def check_gpu(got, out_dtype, ref, mag, k, acc_bits, acc_k, rounded=None):
    """got (the GPU's D as float64, D's dtype out_dtype: BF16, F16 or F32)
    against ref and mag by the GPU's error model; rounded: rounding()'s
    (bound, spread) where the route rounds the operands."""
    u, eta = _OUTPUT[np.dtype(out_dtype)]
    run = acc_k if 0 < acc_k < k else k
    u_acc, f32 = 2.0**-acc_bits, 2.0**-24
    g = 16 * u_acc + (math.ceil(k / 64) + 16) * f32
    h = 0.5 * run * u_acc
    rel = math.hypot(0.866 * u, 4 * u_acc * math.sqrt(max(run, 32) / 32)) + \
        (math.sqrt(k / 64) + 16) * f32
    rho = np.where(mag > 0, np.minimum(np.abs(ref) / np.where(mag > 0, mag, 1), 1), 0)
    coh = h * rho * rho * np.abs(ref)
    bnd, spr = rounded if rounded is not None else (np.zeros_like(ref), np.zeros_like(ref))
    _judge(got, ref, u * np.abs(ref) + (1 + u) * (g * mag + coh + bnd) + eta)
    if got.size >= 64:
        err2, ref2 = float(np.sum((got - ref) ** 2)), float(np.sum(ref**2))
        measured = math.sqrt(err2 / ref2) if ref2 > 0 else math.sqrt(err2)
        bound = rel + (math.sqrt(float(np.sum(coh**2)) / ref2) +
                       4 * math.sqrt(float(np.sum(spr**2)) / ref2) if ref2 > 0 else 0)
        assert measured <= bound, f"relative error {measured:.3g} above its bound {bound:.3g}"


def sf_128x4(scales):
    """[rows, cols] uint8 scale codes laid out in the SM100 128x4 tiled
    layout (docs/payloads.md), padding filled with 0xFF (NaN in ue8m0 and
    ue4m3: a read of it shows)."""
    rows, cols = scales.shape
    c4 = math.ceil(cols / 4)
    out = np.full(math.ceil(rows / 128) * c4 * 512, 0xFF, np.uint8)
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    at = ((r // 128) * c4 + c // 4) * 512 + (r % 32) * 16 + ((r % 128) // 32) * 4 + c % 4
    out[at] = scales
    return out
