"""tilepipe.torch_tensors: torch tensors as tilepipe operands.

The torch counterpart of tilepipe.operands, imported only when a call is
handed a torch tensor (tilepipe never imports torch itself). CPU tensors
run on the CPU backend as NumPy arrays do. CUDA tensors must all be on one
device; the call runs on the CUDA backend under that device
(torch.cuda.device) on torch.cuda.current_stream() of it, and the plan
cache keys the plan by device and stream, so runs on different streams
never share a plan's workspace (docs/threads.md). A tensor is described
by its data_ptr() and its strides (torch counts them in elements);
torch.float4_e2m1fn_x2 holds two fp4 elements per byte as tilepipe does,
so its [rows, K/2] is the operand [rows, K].

This path has not been run yet (no torch and no GPU where it was written):
docs/python.md says so."""
import torch

from . import abi, dtypes, errors, operands

_CODES = {torch.float32: dtypes.F32, torch.bfloat16: dtypes.BF16, torch.float16: dtypes.F16,
          torch.int8: dtypes.S8}
for _name, _code in (("float8_e4m3fn", dtypes.E4M3), ("float8_e5m2", dtypes.E5M2),
                     ("float8_e8m0fnu", dtypes.UE8M0), ("float4_e2m1fn_x2", dtypes.E2M1)):
    if hasattr(torch, _name):
        _CODES[getattr(torch, _name)] = _code
_DTYPES = {code: dt for dt, code in _CODES.items()}


def placement(tensors, backend):
    if not all(isinstance(t, torch.Tensor) for t in tensors):
        raise errors.InvalidArgumentError(
            "tilepipe: a call takes torch tensors or NumPy arrays, not both")
    devices = {t.device for t in tensors}
    if len(devices) != 1:
        raise errors.InvalidArgumentError(
            f"tilepipe: the tensors are on {', '.join(sorted(map(str, devices)))}; one device only")
    device = devices.pop()
    if device.type == "cpu":
        return operands.placement(tensors, backend)
    if device.type != "cuda" or backend == abi.BACKENDS["cpu"]:
        raise errors.InvalidArgumentError(
            f"tilepipe: tensors on {device} do not run on the "
            f"{'CPU backend' if device.type == 'cuda' else 'CPU or CUDA backend'}")
    stream = torch.cuda.current_stream(device).cuda_stream
    return abi.BACKENDS["cuda"], stream, (device.index, stream), torch.cuda.device(device)


def is_raw(t):
    return t.dtype == torch.uint8


def new_out(shape, code, like):
    dt = _DTYPES.get(code)
    if dt is None:
        raise errors.UnsupportedError(f"tilepipe: out_dtype {dtypes.NAMES.get(code, code)} has no torch type")
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
            raise errors.InvalidArgumentError(f"tilepipe: {name}: fp4 must be [rows, K/2], rows contiguous")
        shape, strides = [shape[0], 2 * shape[1]], [2 * strides[0], 1]
    return operands.Operand(operands.tensor(code, shape, strides, t.data_ptr()), t)
