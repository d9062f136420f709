"""tilepipe.warm: a service's kernels linked into the kernel cache before
its traffic (tp_cache_warm, tilepipe/warm.h).

    tilepipe.warm([(16, 4096, 4096), (4096, 4096, 4096)], payload="standard",
                  out_dtype="bf16", gpu="h100-sxm")

Each (M, N, K) is described as tp_problem_describe describes it for the
payload (its default A and B dtypes unless a_dtype, b_dtype are given, and
its scale tensors, strided), with contiguous A, B and D (and C of c_dtype
when given, for the residual epilogue); no memory is allocated. gpu names
a model's figures (tp_link_target_lookup: "h100-sxm", ...) so that a
machine without a GPU can warm the cache that GPU machines read; None
takes the GPU of the calling thread. Needs a tilepipe built with the CUDA
toolkit (else tilepipe.NoDeviceError). Returns the counts of
tp_warm_result as a dict."""
import ctypes

from . import abi, dtypes, errors, library
from . import registry as registry_module


def _code(name, value):
    if value is None:
        return dtypes.NONE
    code = dtypes.parse(value)
    if code is None:
        raise errors.UnsupportedError(f"tilepipe: {name}: unknown dtype {value!r}")
    return code


def warm(shapes, *, payload="standard", epilogue="store", a_dtype=None, b_dtype=None,
         out_dtype="bf16", c_dtype=None, gpu=None, jobs=0, registry=None):
    reg = registry if registry is not None else registry_module.default()
    shapes = [tuple(int(x) for x in s) for s in shapes]
    if not shapes or any(len(s) != 3 for s in shapes):
        raise errors.InvalidArgumentError("tilepipe: warm: shapes must be (M, N, K) triples, at least one")
    descs = (abi.GemmDesc * len(shapes))()
    for i, (m, n, k) in enumerate(shapes):
        d = abi.new_desc(m, n, k)
        d.a.dtype, d.b.dtype = _code("a_dtype", a_dtype), _code("b_dtype", b_dtype)
        d.d.dtype, d.c.dtype = _code("out_dtype", out_dtype), _code("c_dtype", c_dtype)
        problem = abi.Problem()
        problem.struct_size = ctypes.sizeof(abi.Problem)
        library.call("tp_problem_describe", reg.handle, payload.encode(), None, ctypes.byref(d),
                     ctypes.byref(problem))
        for field, rows, cols in (("a", m, k), ("b", n, k), ("d", m, n), ("c", m, n)):
            t = getattr(d, field)
            if t.dtype != dtypes.NONE:
                t.layout, t.rank = abi.LAYOUT_STRIDED, 2
                t.shape[0], t.shape[1], t.stride[0], t.stride[1] = rows, cols, cols, 1
        descs[i] = d
    options = abi.WarmOptions()
    options.struct_size = ctypes.sizeof(abi.WarmOptions)
    options.jobs = jobs
    target = None
    if gpu is not None:
        target = abi.LinkTarget()
        target.struct_size = ctypes.sizeof(abi.LinkTarget)
        library.call("tp_link_target_lookup", gpu.encode(), ctypes.byref(target))
        options.target = ctypes.pointer(target)
    result = abi.WarmResult()
    result.struct_size = ctypes.sizeof(abi.WarmResult)
    library.call("tp_cache_warm", reg.handle, payload.encode(), epilogue.encode(), descs,
                 len(shapes), ctypes.byref(options), ctypes.byref(result))
    return {"kernels": result.kernels, "cached": result.cached, "linked": result.linked,
            "failed": result.failed, "jobs": result.jobs,
            "cache_dir": library.text(result.cache_dir)}
