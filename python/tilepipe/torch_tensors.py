"""tilepipe.torch_tensors: torch tensors as tilepipe operands.

The torch counterpart of tilepipe.operands, imported only when a call is
handed a torch tensor (importing tilepipe imports no torch). CPU tensors
run on the CPU backend as NumPy arrays do. CUDA tensors must all be on one
device; the call runs on the CUDA backend under that device
(torch.cuda.device: its primary context current, as the C API's plans and
runs need, tilepipe/plan.h) on torch.cuda.current_stream() of it, whose
handle tp_plan_run takes. The plan cache keys a CUDA plan by device and
stream, so runs on different streams never share a plan's workspace
(docs/threads.md), and a plan is created with the device's primary
context made current (tp_device_select), so it belongs to the tensors'
device whatever context the thread had.

CUDA graphs: a run only launches kernels (tp_plan_run allocates nothing),
so it may be captured; creating a plan allocates its workspace and links
or loads the kernel, which capture forbids. So a miss while the current
stream is capturing raises InvalidArgumentError before the library is
called: the plan must be made by a warm-up call of the same shapes on the
capturing stream before capture (docs/python.md, "CUDA graphs").

Repeated calls (tilepipe.calls): call_key() is a call's signature (every
tensor's dtype, device, shape and strides, whether out requires grad, the
scalars, the stream), and cached_call() the Call a described call leaves:
a repeat is the signature, a look-up, the data pointers and the launch.

A tensor is described by its data_ptr() (storage offset included) and its
strides, which torch counts in elements as tilepipe does;
torch.float4_e2m1fn_x2 holds two fp4 elements per byte as tilepipe does,
so its [rows, K/2] is the operand [rows, K]; uint8 tensors are raw scale
codes (tilepipe.dtypes)."""
import functools

import torch

from . import abi, calls, dtypes, errors, library, operands
from . import torch_ops  # noqa: F401  (torch.ops.tilepipe.matmul, once torch is in use)
from .matmul import call_keys

_CODES = {torch.float32: dtypes.F32, torch.bfloat16: dtypes.BF16, torch.float16: dtypes.F16,
          torch.int8: dtypes.S8}
for _name, _code in (("float8_e4m3fn", dtypes.E4M3), ("float8_e5m2", dtypes.E5M2),
                     ("float8_e8m0fnu", dtypes.UE8M0), ("float4_e2m1fn_x2", dtypes.E2M1)):
    if hasattr(torch, _name):
        _CODES[getattr(torch, _name)] = _code
_DTYPES = {code: dt for dt, code in _CODES.items()}


# The current stream's handle of device index i, and the current device's
# index, without the Python wrappers (a Stream object, lazy-init checks)
# where this torch has the bindings.
if hasattr(torch._C, "_cuda_getCurrentRawStream"):
    _stream_of = torch._C._cuda_getCurrentRawStream
else:
    def _stream_of(index):
        return torch.cuda.current_stream(index).cuda_stream
_current_device = getattr(torch._C, "_cuda_getDevice", torch.cuda.current_device)


def _refuse_during_capture(device, stream):
    def before_create():
        if torch.cuda.is_current_stream_capturing():
            raise errors.InvalidArgumentError(
                f"tilepipe: no plan yet for this call on stream {stream:#x} of {device}, which "
                "is capturing a CUDA graph; creating a plan allocates and links, which capture "
                "forbids: run the same call once on this stream before capture "
                "(docs/python.md, \"CUDA graphs\")")
        library.call("tp_device_select", device.index)
    return before_create


def placement(tensors, backend):
    if not all(isinstance(t, torch.Tensor) for t in tensors):
        raise errors.InvalidArgumentError(
            "tilepipe: a call takes torch tensors or NumPy arrays, not both")
    device = tensors[0].device
    if any(t.device != device for t in tensors):
        names = sorted({str(t.device) for t in tensors})
        raise errors.InvalidArgumentError(
            f"tilepipe: the tensors are on {', '.join(names)}; a call takes one device")
    if device.type == "cpu":
        return operands.placement(tensors, backend)
    if device.type != "cuda" or backend == abi.BACKENDS["cpu"]:
        raise errors.InvalidArgumentError(
            f"tilepipe: tensors on {device} do not run on the "
            f"{'CPU backend' if device.type == 'cuda' else 'CPU or CUDA backend'}")
    stream = _stream_of(device.index)
    return operands.Placement(abi.BACKENDS["cuda"], stream, (device.index, stream),
                              torch.cuda.device(device), _refuse_during_capture(device, stream))


def is_raw(t):
    return t.dtype == torch.uint8


def out_code(out_dtype):
    """The tp_dtype of out_dtype: a torch dtype, a NumPy dtype or a name."""
    if isinstance(out_dtype, torch.dtype):
        return _CODES.get(out_dtype)
    return dtypes.parse(out_dtype)


def torch_dtype(code):
    """The torch dtype of a tp_dtype code; None when torch has none."""
    return _DTYPES.get(code)


def new_out(shape, code, like):
    dt = _DTYPES.get(code)
    if dt is None:
        raise errors.UnsupportedError(
            f"tilepipe: out_dtype {dtypes.NAMES.get(code, code)} has no torch type")
    return torch.empty(shape, dtype=dt, device=like.device)


def operand(name, t, raw_code=None, writable=False):
    if not isinstance(t, torch.Tensor):
        raise errors.InvalidArgumentError(f"tilepipe: {name}: a {type(t).__name__}, not a tensor")
    if writable and t.requires_grad:
        raise errors.InvalidArgumentError(f"tilepipe: {name}: a tensor that requires grad")
    code = _CODES.get(t.dtype, raw_code if t.dtype == torch.uint8 else None)
    if code is None:
        raise errors.UnsupportedError(f"tilepipe: {name}: dtype {t.dtype} has no tilepipe type")
    shape = list(t.shape)
    operands.check_rank(name, shape)
    strides = operands.element_strides(name, shape, list(t.stride()), 1)
    if code == dtypes.E2M1:
        if len(shape) != 2 or strides[1] != 1:
            raise errors.InvalidArgumentError(
                f"tilepipe: {name}: fp4 must be [rows, K/2] of float4_e2m1fn_x2, rows contiguous")
        shape, strides = [shape[0], 2 * shape[1]], [2 * strides[0], 1]
    return operands.Operand(operands.tensor(code, shape, strides, t.data_ptr()), t)


def call_key(a, b, a_scale, b_scale, c, bias, out, scalars):
    """The signature of a call of tensor a (tilepipe.calls): what its
    description and checks read, pointers aside, with the current stream
    of a's device; None when the call is not cached (an operand that is no
    tensor, such as SF128x4 scales, or an out that requires grad: the full
    path describes or refuses it)."""
    tensor = torch.Tensor
    if not isinstance(b, tensor):
        return None
    rest = None
    if a_scale is not None or b_scale is not None or c is not None or bias is not None:
        rest = []
        for t in (a_scale, b_scale, c, bias):
            if t is not None and not isinstance(t, tensor):
                return None
            rest.append(None if t is None else (t.dtype, t.device, t.shape, t.stride()))
        rest = tuple(rest)
    if out is None:
        d = None
    elif isinstance(out, tensor) and not out.requires_grad:
        d = (out.dtype, out.device, out.shape, out.stride())
    else:
        return None
    stream = _stream_of(a.get_device()) if a.is_cuda else None
    return (scalars, stream, a.dtype, a.device, a.shape, a.stride(), b.dtype, b.device, b.shape,
            b.stride(), rest, d)


def _enter(index):
    """A CUDA call's enter() (tilepipe.calls.Call): the plan's device made
    current for the run when another is."""
    def enter():
        return None if _current_device() == index else torch.cuda.device(index)
    return enter


def cached_call(plan, desc, where, out):
    """The Call (tilepipe.calls) that repeats a described call whose out
    was `out`: a new out is one like it, on its device. None while the
    stream is capturing a CUDA graph: the template below would come from
    the graph's memory pool and hold it; a call after capture keeps one."""
    if out.is_cuda and torch.cuda.is_current_stream_capturing():
        return None
    # torch.empty itself: a template tensor kept for empty_like would be an
    # allocation the call holds, which torch.compile's CUDA graph trees
    # refuse when the first call comes under their warm-up.
    new_out = functools.partial(torch.empty, out.shape, dtype=out.dtype, device=out.device)
    enter = _enter(out.device.index) if out.is_cuda else None
    return calls.Call(plan, desc, where.stream, new_out, torch.Tensor.data_ptr, enter)


# Calls whose A is a tensor (or a parameter, as a weight may be passed) are cached.
call_keys[torch.Tensor] = call_keys[torch.nn.Parameter] = call_key
