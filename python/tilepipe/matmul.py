"""tilepipe.matmul: one GEMM through a payload and an epilogue.

    out[M, N] = epilogue(alpha * a[M, K] @ b[N, K].T, beta, c[M, N], bias[N])

b is [N, K], as the C API takes it and as a torch.nn.Linear weight is
stored: y = x @ W.T is matmul(x, W). The scales are the payload's
(docs/payloads.md); c is the residual epilogue's source and may be the
same array as out; bias is tp_gemm_desc.bias, for an epilogue that takes
one (the shipped store and residual refuse it, examples/bias_silu takes
it).

The operands are NumPy arrays (tilepipe.operands: host memory, the CPU
backend) or torch tensors (tilepipe.torch_tensors: CPU tensors on the CPU
backend, CUDA tensors on their device's current stream). Each is described
as it is (no copy, but for fp4), the plan comes from the registry's plan
cache (tilepipe.plan_cache) and runs. A call of a signature seen before
(tilepipe.calls) skips the describing: the Call the first one left runs
on the new pointers. On any refusal, by this package or by the library,
nothing is written."""
import ctypes
import sys

import numpy as np

from . import abi, dtypes, errors, library, operands
from . import registry as registry_module

# The call_key of each type of `a` whose calls are cached (tilepipe.calls);
# tilepipe.torch_tensors adds torch's types when it is imported.
call_keys = {np.ndarray: operands.call_key}
# The alpha and beta a cached call may be keyed by: values that cannot change.
_NUMBERS = (int, float, np.integer, np.floating)


def _is_torch(x):
    return "torch" in sys.modules and type(x).__module__.startswith("torch")


def scale_code(reg, payload, m, n, k, a_code, b_code, d_code, which):
    """The dtype the payload describes for a_scale or b_scale
    (tp_problem_describe), for scales given as raw uint8 codes."""
    desc = abi.new_desc(m, n, k)
    desc.a.dtype, desc.b.dtype, desc.d.dtype = a_code, b_code, d_code
    problem = abi.Problem()
    problem.struct_size = ctypes.sizeof(abi.Problem)
    library.call("tp_problem_describe", reg.handle, payload.encode(), None, ctypes.byref(desc),
                 ctypes.byref(problem))
    code = getattr(desc, which).dtype
    if code == dtypes.NONE:
        raise errors.InvalidArgumentError(
            f"tilepipe: {which}: {payload} takes no {which} for A {dtypes.NAMES.get(a_code)} x "
            f"B {dtypes.NAMES.get(b_code)}")
    return code


def _backend(name):
    code = abi.BACKENDS.get(name)
    if code is None:
        raise errors.InvalidArgumentError(
            f"tilepipe: unknown backend {name!r}; one of {', '.join(abi.BACKENDS)}")
    return code


def default_out_code(a_code):
    """out's dtype when out and out_dtype are not given: a's for bf16 or
    f16 a, else bf16."""
    if a_code in (dtypes.BF16, dtypes.F16):
        return a_code
    return dtypes.BF16


def matmul(a, b, *, payload="standard", epilogue="store", a_scale=None, b_scale=None, c=None,
           bias=None, alpha=1.0, beta=0.0, out=None, out_dtype=None, registry=None,
           backend="auto"):
    """out = epilogue(alpha * a @ b.T, beta, c, bias) with b [N, K]; returns
    out (a new [M, N] array or tensor of out_dtype, on a's device, when out
    is None: by default a's dtype for bf16 or f16 a, else bf16)."""
    return run(a, b, payload, epilogue, a_scale, b_scale, c, bias, alpha, beta, out, out_dtype,
               registry, backend)


def run(a, b, payload, epilogue, a_scale, b_scale, c, bias, alpha, beta, out, out_dtype,
        registry, backend):
    """matmul with every argument given in order (torch_ops calls it so)."""
    reg = registry if registry is not None else registry_module.default()
    key_of = call_keys.get(type(a))
    if key_of is None and _is_torch(a):  # torch_tensors adds its call_key when imported
        from . import torch_tensors  # noqa: F401
        key_of = call_keys.get(type(a))
    key = None if key_of is None else key_of(
        a, b, a_scale, b_scale, c, bias, out, (payload, epilogue, alpha, beta, out_dtype, backend))
    if key is not None:
        try:
            hit = reg.plans.calls.get(key)
        except TypeError:  # an unhashable argument: the full path refuses it
            key = hit = None
        if hit is not None:
            reg.plans.count_hit()
            return hit.run(a, b, (a_scale, b_scale, c, bias), out)
    scale_data = [s.data if isinstance(s, operands.SF128x4) else s for s in (a_scale, b_scale)]
    given = [x for x in (a, b, c, bias, out, *scale_data) if x is not None]
    if any(_is_torch(x) for x in given):
        from . import torch_tensors as adapter
    else:
        adapter = operands
    where = adapter.placement(given, _backend(backend))
    with where.context:
        op_a = adapter.operand("A", a)
        op_b = adapter.operand("B", b)
        if op_a.tensor.rank != 2:
            raise errors.InvalidArgumentError(
                f"tilepipe: A must be [M, K] (rank 2), not rank {op_a.tensor.rank}")
        m, n, k = op_a.tensor.shape[0], op_b.tensor.shape[0], op_a.tensor.shape[1]
        want = None if out_dtype is None else adapter.out_code(out_dtype)
        if out_dtype is not None and want is None:
            raise errors.UnsupportedError(f"tilepipe: out_dtype {out_dtype!r} is no tilepipe type")
        if out is None:
            out = adapter.new_out((m, n), want or default_out_code(op_a.tensor.dtype), a)
        op_d = adapter.operand("D (out)", out, writable=True)
        if want is not None and want != op_d.tensor.dtype:
            raise errors.InvalidArgumentError(
                f"tilepipe: out is {out.dtype}, out_dtype asks for {out_dtype}")
        op_c = adapter.operand("C", c) if c is not None else None
        op_bias = adapter.operand("bias", bias) if bias is not None else None
        scales = []
        for which, s, data in (("a_scale", a_scale, scale_data[0]),
                               ("b_scale", b_scale, scale_data[1])):
            if s is None:
                scales.append(None)
                continue
            raw = None
            if adapter.is_raw(data):
                raw = scale_code(reg, payload, m, n, k, op_a.tensor.dtype, op_b.tensor.dtype,
                                 op_d.tensor.dtype, which)
            op = adapter.operand(which, data, raw_code=raw)
            if isinstance(s, operands.SF128x4):
                op = operands.tiled_scales(which, s, raw, op)
            scales.append(op)
        desc = abi.new_desc(m, n, k)
        desc.a, desc.b, desc.d = op_a.tensor, op_b.tensor, op_d.tensor
        described = [(op_a, a), (op_b, b), (op_d, out)]
        for field, op, x in (("a_scale", scales[0], a_scale), ("b_scale", scales[1], b_scale),
                             ("c", op_c, c), ("bias", op_bias, bias)):
            if op is not None:
                setattr(desc, field, op.tensor)
                described.append((op, x))
        desc.alpha, desc.beta = alpha, beta
        plan = reg.plans.get(payload, epilogue, desc, where.backend, where.extra,
                             where.before_create)
        library.call("tp_plan_run", plan, ctypes.byref(desc), where.stream)
    # Repeats run from this call's plan and descriptor, unless an operand was
    # described through a copy (NumPy fp4) whose pointer a repeat lacks, or
    # alpha or beta is an object whose value may change under the same key
    # (a tensor).
    if (key is not None and all(op.keep is x for op, x in described)
            and isinstance(alpha, _NUMBERS) and isinstance(beta, _NUMBERS)):
        call = adapter.cached_call(plan, desc, where, out)
        if call is not None:
            reg.plans.calls[key] = call
    return out
