"""tilepipe.dtypes: NumPy dtypes and tilepipe's tp_dtype codes.

NumPy has float32, float16 and int8 itself; bf16, fp8 (e4m3fn, e5m2), the
ue8m0 scale type and fp4 (e2m1) come from the optional ml_dtypes package
(`pip install 'tilepipe[ml_dtypes]'`). Two types need more than a view:

- fp4 (e2m1): ml_dtypes stores one element per byte, tilepipe two (the
  even element in the low nibble); pack_e2m1 packs, and matmul packs an
  ml_dtypes float4_e2m1fn operand through it (a copy of the array).
- uint8 arrays are raw codes of an 8-bit scale type that NumPy lacks
  (NVFP4's unsigned e4m3, or ue8m0 without ml_dtypes): their dtype is the
  one the payload describes for the scale (tp_problem_describe).

The codes are include/tilepipe/dtype.h's enum."""
import numpy as np

from . import library

try:
    import ml_dtypes
except ImportError:  # bf16 and fp8 arrays then cannot be made; f16, f32 and s8 still run
    ml_dtypes = None

NONE, F32, BF16, F16, E4M3, E5M2, UE8M0, E2M1, UE4M3, S8 = range(10)

NAMES = {F32: "f32", BF16: "bf16", F16: "f16", E4M3: "e4m3", E5M2: "e5m2", UE8M0: "ue8m0",
         E2M1: "e2m1", UE4M3: "ue4m3", S8: "s8"}

# Raw 8-bit codes of a type the payload names (see above).
RAW = np.dtype(np.uint8)

_BY_NUMPY = {np.dtype(np.float32): F32, np.dtype(np.float16): F16, np.dtype(np.int8): S8}
_ML_NAMES = {"bfloat16": BF16, "float8_e4m3fn": E4M3, "float8_e5m2": E5M2,
             "float8_e8m0fnu": UE8M0, "float4_e2m1fn": E2M1}
if ml_dtypes is not None:
    for _name, _code in _ML_NAMES.items():
        if hasattr(ml_dtypes, _name):
            _BY_NUMPY[np.dtype(getattr(ml_dtypes, _name))] = _code
_TO_NUMPY = {code: dt for dt, code in _BY_NUMPY.items()}

def code_of(dtype):
    """The tp_dtype of a NumPy dtype; None when tilepipe has no such type
    (uint8, raw codes, is not one: see RAW)."""
    return _BY_NUMPY.get(np.dtype(dtype))


def numpy_of(code):
    """The NumPy dtype of a tp_dtype code; None without ml_dtypes for the
    types it provides."""
    return _TO_NUMPY.get(code)


def parse(dtype):
    """The tp_dtype of a dtype argument: a NumPy dtype, or a name as
    tp_dtype_from_name reads it ("bf16", "float32", "fp8_e4m3", ...); None
    when it is neither."""
    if isinstance(dtype, str):
        code = library.load().tp_dtype_from_name(dtype.encode())
        return code if code != NONE else None
    try:
        return code_of(dtype)
    except TypeError:
        return None


def pack_e2m1(x):
    """A [rows, K] ml_dtypes float4_e2m1fn array packed two per byte as
    tilepipe reads fp4: a uint8 [rows, ceil(K/2)] array, element 2i of a row
    in the low nibble of byte i."""
    codes = np.ascontiguousarray(x).view(np.uint8) & 0xF
    rows, k = codes.shape
    if k % 2:
        codes = np.concatenate([codes, np.zeros((rows, 1), np.uint8)], axis=1)
    return (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
