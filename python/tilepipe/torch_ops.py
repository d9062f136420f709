"""tilepipe.torch_ops: tilepipe.matmul as the torch operator
torch.ops.tilepipe.matmul, for torch.compile and CUDA graphs.

    y = torch.ops.tilepipe.matmul(x, w, "standard", "store")   # x @ w.T

Importing this module registers the operator (torch.library);
importing tilepipe registers it too when torch was imported first, and so
does any call of tilepipe.matmul on torch tensors. The operator is
functional: it returns a new [M, N] tensor on a's device (tilepipe.matmul's
out=None path), so torch.compile may reorder and fuse around it; its fake
implementation gives that tensor's shape, dtype and device without running
anything, which is all that tracing (torch.compile, fullgraph included)
needs. It runs as tilepipe.matmul runs (the default registry, the plan
cache, the current stream of a CUDA tensor's device), so it may be captured
into a CUDA graph once a warm-up call has made its plan on the capturing
stream (docs/python.md, "CUDA graphs"). Scales in the 128x4 tiled layout
(tilepipe.SF128x4), `out=` and a registry other than the default are
tilepipe.matmul's alone. There is no autograd formula: the operator is for
inference."""
import torch

from . import torch_tensors
from .matmul import default_out_code
from .matmul import run as _matmul

# Defined through torch.library.Library rather than custom_op: the same
# operator, without custom_op's Python wrapper around each call (some ten
# microseconds of host time, which a decode step would pay per GEMM).
_library = torch.library.Library("tilepipe", "DEF")
_library.define(
    "matmul(Tensor a, Tensor b, str payload='standard', str epilogue='store', "
    "Tensor? a_scale=None, Tensor? b_scale=None, Tensor? c=None, Tensor? bias=None, "
    "float alpha=1.0, float beta=0.0, ScalarType? out_dtype=None) -> Tensor")


def _run(a, b, payload="standard", epilogue="store", a_scale=None, b_scale=None, c=None,
         bias=None, alpha=1.0, beta=0.0, out_dtype=None):
    return _matmul(a, b, payload, epilogue, a_scale, b_scale, c, bias, alpha, beta, None, out_dtype,
                   None, "auto")


def _fake(a, b, payload="standard", epilogue="store", a_scale=None, b_scale=None, c=None,
          bias=None, alpha=1.0, beta=0.0, out_dtype=None):
    if out_dtype is None:
        out_dtype = torch_tensors.torch_dtype(default_out_code(torch_tensors.out_code(a.dtype)))
    return a.new_empty((a.shape[0], b.shape[0]), dtype=out_dtype)


# One kernel for CPU and CUDA tensors alike (tilepipe.matmul places the call).
_library.impl("matmul", _run, "CompositeExplicitAutograd")
torch.library.register_fake("tilepipe::matmul", _fake, lib=_library)
