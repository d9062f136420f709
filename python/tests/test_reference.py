"""python/tests/test_reference.py: the GPU judge (reference.check_gpu),
which test_torch_cuda.py holds every GPU result to, on results made here:
the reference itself rounded to D passes, and so does a result within the
modelled error of a bf16 wgmma sum; a 1% error in one column (a scale
applied to the wrong element), a sign flip, a NaN (an unwritten element)
each fail."""
import numpy as np
import pytest

from reference import BF16, F32, check_gpu, expect

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
