"""tilepipe.calls: repeated calls of tilepipe.matmul, run from what the
first such call built.

A call's descriptor and plan follow from its signature alone: each
operand's type, dtype, shape and strides (and device), the payload, the
epilogue, alpha, beta, out_dtype, the backend (and the stream), never the
data pointers. So the plan cache keeps, per signature (registry.plans.calls),
a Call: the plan and the descriptor the first call of that signature built
once every check had passed. A repeat is the signature, one dictionary
look-up, the new data pointers written into a copy of that descriptor, and
tp_plan_run.

Each adapter (tilepipe.operands for NumPy arrays, tilepipe.torch_tensors
for torch tensors) makes the signature, call_key(): everything the
package's own checks read is in it (the dtype, the rank, the strides, out's
writability), so a hit is a call those checks passed for; what depends on
the pointers (alignment, overlaps) the library checks on every run. A call
that the first one described through a copy (NumPy fp4, packed) is not
kept: its pointer is the copy's.

Threads: a Call hands each run a descriptor of its own from a pool (list
pop and append, atomic under the GIL), so runs on several threads never
write one descriptor; the pool grows to the number of runs at once."""
import ctypes

from . import abi, errors, library

_WORD = ctypes.sizeof(ctypes.c_uint64)
_WORDS = ctypes.sizeof(abi.GemmDesc) // _WORD


def _data_word(field):
    return (getattr(abi.GemmDesc, field).offset + abi.Tensor.data.offset) // _WORD


# The descriptor's data pointers as 64-bit words of it: A, B, D, then the
# optional operands in run()'s order.
_A, _B, _D = _data_word("a"), _data_word("b"), _data_word("d")
_OPTIONAL = tuple(_data_word(f) for f in ("a_scale", "b_scale", "c", "bias"))


def _plan_run():
    """tp_plan_run taking the descriptor as an address (an int), so that a
    repeat passes three ints to ctypes; its own function object, leaving
    library.load()'s declaration as it is."""
    fn = library.load()["tp_plan_run"]
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    return fn


_run = _plan_run()


class Call:
    """A cached call: its plan, its descriptor (the pointers aside), how to
    make out when none is given and how to read a data pointer.

    new_out() makes out; pointer(x) is x's data pointer; enter() is None
    or returns None (nothing to do) or a context manager to run under (a
    CUDA call's device, when another is current)."""
    __slots__ = ("plan", "stream", "new_out", "pointer", "enter", "optional", "_template",
                 "_pool")

    def __init__(self, plan, desc, stream, new_out, pointer, enter=None):
        if _WORDS * _WORD != ctypes.sizeof(desc):
            raise errors.InternalError("tilepipe: tp_gemm_desc is not whole 64-bit words")
        self.plan, self.stream = plan.value, stream
        self.new_out, self.pointer, self.enter = new_out, pointer, enter
        # The optional operands present, as (argument index, word) pairs.
        self.optional = tuple((i, w) for i, (w, t) in enumerate(zip(
            _OPTIONAL, (desc.a_scale, desc.b_scale, desc.c, desc.bias))) if t.rank)
        self._template = bytes(desc)
        self._pool = []

    def _descriptor(self):
        words = (ctypes.c_uint64 * _WORDS).from_buffer_copy(self._template)
        return words, ctypes.addressof(words)

    def run(self, a, b, optional, out):
        """out = the call on these operands (optional: a_scale, b_scale, c,
        bias, None where absent, as the signature says); returns out."""
        if out is None:
            out = self.new_out()
        pool, pointer = self._pool, self.pointer
        item = pool.pop() if pool else self._descriptor()
        words = item[0]
        words[_A], words[_B], words[_D] = pointer(a), pointer(b), pointer(out)
        for i, w in self.optional:
            words[w] = pointer(optional[i])
        ctx = self.enter() if self.enter is not None else None
        try:
            if ctx is None:
                status = _run(self.plan, item[1], self.stream)
            else:
                with ctx:
                    status = _run(self.plan, item[1], self.stream)
        finally:
            pool.append(item)
        if status:
            raise library.last_error(status)
        return out
