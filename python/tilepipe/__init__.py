"""tilepipe: tilepipe's GEMMs from Python, over libtilepipe through ctypes.

    import numpy as np, ml_dtypes, tilepipe
    x = np.random.randn(7, 256).astype(ml_dtypes.bfloat16)     # [M, K]
    w = np.random.randn(512, 256).astype(ml_dtypes.bfloat16)   # [N, K]
    y = tilepipe.matmul(x, w)                                  # x @ w.T, bf16 [7, 512]

Registry lists and describes plugins; matmul runs one GEMM through a
payload and an epilogue, its plan cached; warm links a service's kernels
ahead of its traffic; every failure raises a tilepipe.Error subclass with
the library's status and message. Torch tensors are taken as well, and
torch.ops.tilepipe.matmul is the operator for torch.compile and CUDA graphs
(tilepipe.torch_ops). docs/python.md has the whole of it."""
import sys

from . import dtypes
from .errors import (CudaError, Error, InternalError, InvalidArgumentError, IOFailure, LinkError,
                     NoDeviceError, NotFoundError, OutOfMemoryError, PluginError, RegistryError,
                     UnsupportedError)
from .library import load as _load
from .library import text as _text
from .matmul import matmul
from .operands import SF128x4
from .registry import Plugin, Registry
from .warm import warm

__version__ = _text(_load().tp_version())

if "torch" in sys.modules:  # torch.ops.tilepipe.matmul, without importing torch here
    from . import torch_ops  # noqa: F401

__all__ = ["matmul", "warm", "Registry", "Plugin", "SF128x4", "dtypes", "Error",
           "InvalidArgumentError", "UnsupportedError", "NotFoundError", "RegistryError",
           "PluginError", "NoDeviceError", "CudaError", "LinkError", "OutOfMemoryError",
           "IOFailure", "InternalError", "__version__"]
