"""tilepipe.plan_cache: the plans of one registry, keyed by what makes a
plan.

tp_plan_run takes a descriptor that matches the one the plan was created
from in everything but the data pointers (sizes, dtypes, layouts, shapes,
strides, alpha, beta; tilepipe/plan.h). So a plan is cached under exactly
those, plus the payload, the epilogue and the backend asked for, plus what
the caller adds (the torch path adds the device and the stream: runs of one
CUDA plan must not overlap on the GPU, docs/threads.md, so each stream gets
its own plan). Data pointers are not in the key: the plan does not depend on
them, and each run checks their alignment itself (TP_ERR_INVALID_ARGUMENT).
A call of a new signature is described, then looked up here; a repeat of
one is found in `calls` before anything is described (tilepipe.calls). On
a miss the
caller's `before_create` runs first: the torch path refuses there to make a
plan while its stream is captured into a CUDA graph (creating one allocates
and links, which capture forbids).

Threads: look-ups and inserts hold a lock; creating a plan does not (two
threads that miss the same key both create one, the first stored wins and
the other is destroyed). Plans live until their registry is closed."""
import ctypes
import threading

from . import library


def _tensor_key(t):
    r = t.rank
    return (t.dtype, t.layout, r, tuple(t.shape[:r]), tuple(t.stride[:r]))


def desc_key(desc):
    """What a plan made from desc is bound to: everything but the pointers."""
    return (desc.m, desc.n, desc.k, _tensor_key(desc.a), _tensor_key(desc.b),
            _tensor_key(desc.a_scale), _tensor_key(desc.b_scale), _tensor_key(desc.c),
            _tensor_key(desc.d), _tensor_key(desc.bias), desc.alpha, desc.beta)


class PlanCache:
    def __init__(self, registry):
        self._registry = registry
        self._lib = library.load()  # held, so that destroying at exit needs no module global
        self._plans = {}
        # Calls by signature (tilepipe.calls: call_key -> Call), each holding
        # one of the plans above.
        self.calls = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self):
        return len(self._plans)

    def get(self, payload, epilogue, desc, backend, extra=(), before_create=None):
        """The plan for (payload, epilogue, desc, backend, extra), created on a
        miss, after before_create() (when given) has not raised."""
        key = (payload, epilogue, backend, desc_key(desc), extra)
        with self._lock:
            plan = self._plans.get(key)
            if plan is not None:
                self.hits += 1
                return plan
            self.misses += 1
        if before_create is not None:
            before_create()
        handle = ctypes.c_void_p()
        library.call("tp_plan_create", ctypes.byref(handle), self._registry.handle,
                     payload.encode(), epilogue.encode(), ctypes.byref(desc), backend)
        with self._lock:
            kept = self._plans.setdefault(key, handle)
        if kept is not handle:
            self._lib.tp_plan_destroy(handle)
        return kept

    def count_hit(self):
        with self._lock:
            self.hits += 1

    def destroy_all(self):
        with self._lock:
            self.calls = {}
            plans, self._plans = list(self._plans.values()), {}
        for plan in plans:
            self._lib.tp_plan_destroy(plan)
