"""tilepipe.operands: NumPy arrays described as tp_tensor, checked first.

An Operand is one tensor of a GEMM descriptor: its abi.Tensor (dtype,
layout, rank, shape, strides in elements, data pointer) and the object
that keeps its memory alive for the call. operand() describes an array
as it is, without copying, except fp4 (packed by a copy, dtypes.pack_e2m1).
It refuses, before the library is called, what a tp_tensor cannot say:
a dtype tilepipe lacks, a rank above 4, negative strides or strides that
are not whole elements, and (for outputs) a read-only array. Everything
else (shapes that disagree, an inner stride other than 1, a row stride
shorter than a row, overlaps, alignment) is the library's to refuse,
with its message: the tensor carries the array's real shape and strides,
so the library's checks see the buffer as it is.

A dimension of extent 1 has no meaningful stride; it is given the stride
a contiguous array would have (NumPy may report anything there).

call_key() is a call's signature for tilepipe.calls (each array's dtype,
shape and strides, out's writability, the scalars), and cached_call() the
Call a described call leaves for its repeats.

SF128x4 marks a block-scaled operand's scales in the 128x4 tiled layout
(tilepipe/tensor.h, docs/payloads.md): the buffer must hold
ceil(rows/128) * ceil(cols/4) * 512 bytes, which is checked here, since
the library trusts the size its layout implies."""
import collections
import contextlib
import functools

import numpy as np

from . import abi, calls, dtypes, errors


class Operand:
    __slots__ = ("tensor", "keep")

    def __init__(self, tensor, keep):
        self.tensor = tensor
        self.keep = keep


class SF128x4:
    """Scales [rows, cols] in the 128x4 tiled layout, in `data` (a 1-D
    ml_dtypes float8_e8m0fnu, or uint8 raw codes, array or tensor)."""

    def __init__(self, data, rows, cols):
        self.data, self.rows, self.cols = data, int(rows), int(cols)

    @property
    def nbytes_needed(self):
        return -(-self.rows // 128) * (-(-self.cols // 4)) * 512


def tensor(code, shape, strides, data, layout=abi.LAYOUT_STRIDED):
    """An abi.Tensor from Python values (strides in elements)."""
    t = abi.Tensor()
    t.dtype, t.layout, t.rank = code, layout, len(shape)
    for i, (s, st) in enumerate(zip(shape, strides)):
        t.shape[i], t.stride[i] = s, st
    t.data = data
    return t


def element_strides(name, shape, byte_strides, itemsize):
    """Strides in elements from strides in bytes, refusing what tilepipe
    cannot address; extent-1 dimensions get contiguous strides."""
    out = [0] * len(shape)
    inner = 1
    for i in range(len(shape) - 1, -1, -1):
        if shape[i] == 1:
            out[i] = inner
        else:
            bs = byte_strides[i]
            if bs < 0 or bs % itemsize:
                raise errors.InvalidArgumentError(
                    f"tilepipe: {name}: stride of {bs} bytes in dimension {i} is not a "
                    f"non-negative whole number of {itemsize}-byte elements")
            out[i] = bs // itemsize
        inner = out[i] * max(shape[i], 1)
    return out


def check_rank(name, shape):
    if not 1 <= len(shape) <= abi.MAX_RANK:
        raise errors.InvalidArgumentError(
            f"tilepipe: {name}: rank {len(shape)}; tilepipe takes 1 to {abi.MAX_RANK} dimensions")


def _unknown_dtype(name, dtype):
    hint = "" if dtypes.ml_dtypes is not None else " (bf16 and fp8 need the ml_dtypes package)"
    return errors.UnsupportedError(
        f"tilepipe: {name}: dtype {dtype} has no tilepipe type; tilepipe takes float32, "
        f"float16, int8 and ml_dtypes' bfloat16, float8_e4m3fn, float8_e5m2, float8_e8m0fnu, "
        f"float4_e2m1fn{hint}")


# Where a call runs: the tp_backend, the stream handle for tp_plan_run, what
# the plan cache adds to its key, the context the call runs under, and what
# the plan cache calls before it creates a plan (None: nothing).
Placement = collections.namedtuple("Placement", "backend stream extra context before_create")


def placement(arrays, backend):
    """Host memory (NumPy arrays, CPU tensors) runs on the CPU backend;
    "auto" is the CPU."""
    if backend == abi.BACKENDS["cuda"]:
        raise errors.InvalidArgumentError(
            "tilepipe: NumPy arrays and CPU tensors are host memory: the CUDA backend takes "
            "torch CUDA tensors")
    return Placement(abi.BACKENDS["cpu"], None, (), contextlib.nullcontext(), None)


def out_code(out_dtype):
    """The tp_dtype of an out_dtype argument (a NumPy dtype or a name); None
    when it names no tilepipe type."""
    return dtypes.parse(out_dtype)


def new_out(shape, code, like):
    dt = dtypes.numpy_of(code)
    if dt is None:
        raise errors.UnsupportedError(
            f"tilepipe: out_dtype {dtypes.NAMES.get(code, code)} has no NumPy type here"
            + ("" if dtypes.ml_dtypes is not None else " (install ml_dtypes)"))
    return np.empty(shape, dt)


def is_raw(x):
    return getattr(x, "dtype", None) == dtypes.RAW


def operand(name, arr, raw_code=None, writable=False):
    """The Operand of a NumPy array; raw_code is the tp_dtype that uint8 raw
    codes stand for (None: uint8 is refused)."""
    if not isinstance(arr, np.ndarray):
        raise errors.InvalidArgumentError(
            f"tilepipe: {name}: a {type(arr).__name__}, not a NumPy array or torch tensor")
    if writable and not arr.flags.writeable:
        raise errors.InvalidArgumentError(f"tilepipe: {name}: the array is read-only")
    check_rank(name, arr.shape)
    code = dtypes.code_of(arr.dtype)
    if code is None and arr.dtype == dtypes.RAW and raw_code is not None:
        code = raw_code
    if code is None:
        raise _unknown_dtype(name, arr.dtype)
    if code == dtypes.E2M1:
        if writable or arr.ndim != 2:
            raise errors.UnsupportedError(
                f"tilepipe: {name}: fp4 (e2m1) is taken only as a rank-2 input operand")
        packed = dtypes.pack_e2m1(arr)
        shape = arr.shape
        return Operand(tensor(code, shape, [2 * packed.shape[1], 1], packed.ctypes.data), packed)
    strides = element_strides(name, arr.shape, arr.strides, arr.itemsize)
    return Operand(tensor(code, arr.shape, strides, arr.ctypes.data), arr)


def tiled_scales(name, sf, raw_code, data_operand):
    """The Operand of SF128x4 scales whose buffer is data_operand (already
    described by the NumPy or torch path)."""
    t = data_operand.tensor
    nbytes = t.shape[0] if t.rank == 1 else None
    if nbytes is None or t.stride[0] != 1 or t.dtype not in (raw_code, dtypes.UE8M0):
        raise errors.InvalidArgumentError(
            f"tilepipe: {name}: the 128x4 tiled scales' data must be a contiguous 1-D array of "
            "8-bit scale codes")
    if sf.rows < 1 or sf.cols < 1 or nbytes < sf.nbytes_needed:
        raise errors.InvalidArgumentError(
            f"tilepipe: {name}: {nbytes} bytes hold no [{sf.rows}, {sf.cols}] scales in the "
            f"128x4 tiled layout ({sf.nbytes_needed} bytes)")
    return Operand(tensor(t.dtype, (sf.rows, sf.cols), (sf.cols, 1), t.data, abi.LAYOUT_SF_128X4),
                   data_operand.keep)


def call_key(a, b, a_scale, b_scale, c, bias, out, scalars):
    """The signature of a call of NumPy array a (tilepipe.calls): what its
    description and checks read, pointers aside; None when the call is not
    cached (an operand that is no ndarray, such as SF128x4 scales)."""
    if type(b) is not np.ndarray:
        return None
    rest = None
    if a_scale is not None or b_scale is not None or c is not None or bias is not None:
        rest = []
        for x in (a_scale, b_scale, c, bias):
            if x is not None and type(x) is not np.ndarray:
                return None
            rest.append(None if x is None else (x.dtype, x.shape, x.strides))
        rest = tuple(rest)
    if out is None:
        d = None
    elif type(out) is np.ndarray:
        d = (out.dtype, out.shape, out.strides, out.flags.writeable)
    else:
        return None
    return (scalars, a.dtype, a.shape, a.strides, b.dtype, b.shape, b.strides, rest, d)


def _pointer(x):
    return x.ctypes.data


def cached_call(plan, desc, where, out):
    """The Call (tilepipe.calls) that repeats a described call whose out
    was `out` (None where a call is not to be kept: the torch path's):
    a new out is one like it."""
    return calls.Call(plan, desc, where.stream, functools.partial(np.empty, out.shape, out.dtype),
                      _pointer)
