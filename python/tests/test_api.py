"""python/tests/test_api.py: the package around the GEMM: its version
against pyproject.toml, the registry's listing, the plan cache (a repeat
call creates no plan), the refusals (each a tilepipe.Error subclass with
the library's status and message, D left as it was), warm, and threads
sharing a registry."""
import os
import re
import threading

import numpy as np
import pytest

import tilepipe
from reference import BF16, E4M3, F32, check, expect, f64, operand, poisoned

HERE = os.path.dirname(os.path.abspath(__file__))


def test_version_matches_pyproject():
    with open(os.path.join(HERE, "..", "pyproject.toml")) as f:
        version = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
    assert tilepipe.__version__ == version


def test_registry_lists_every_plugin_usable(registry):
    plugins = registry.list()
    names = [p.name for p in plugins]
    assert {"standard", "blockwise_fp8", "block_scaled", "store", "residual"} <= set(names)
    for p in plugins:  # loaded into a process that holds libtilepipe RTLD_LOCAL, as ctypes does
        assert p.usable, f"{p.name}: {p.error}"
        assert p.error == "" and p.version == tilepipe.__version__
        assert registry.info(p.name) == p
    assert registry.info("residual").kind == "epilogue"
    assert registry.info("standard").kind == "payload"
    assert registry.path == os.path.abspath(os.environ["TILEPIPE_REGISTRY"])


def test_registry_unknown_name_and_close():
    reg = tilepipe.Registry(os.environ["TILEPIPE_REGISTRY"])
    with pytest.raises(tilepipe.NotFoundError, match="no plugin 'nope'") as e:
        reg.info("nope")
    assert e.value.status == 3 and e.value.status_name == "not found"
    with reg:
        pass
    with pytest.raises(tilepipe.InvalidArgumentError, match="closed"):
        reg.list()
    reg.close()  # idempotent


def test_registry_missing_file(tmp_path):
    with pytest.raises(tilepipe.Error) as e:
        tilepipe.Registry(tmp_path / "absent.ini")
    assert "absent.ini" in e.value.message


def test_plan_cache_hit(registry, rng):
    m, n, k = 33, 47, 129
    before = len(registry.plans)
    a, b, out = operand(rng, (m, k), BF16), operand(rng, (n, k), BF16), poisoned((m, n), F32)
    tilepipe.matmul(a, b, out=out, alpha=0.625, registry=registry)
    misses, hits = registry.plans.misses, registry.plans.hits
    assert len(registry.plans) == before + 1
    # Fresh buffers of the same problem: one dictionary hit, no new plan.
    a, b, out = operand(rng, (m, k), BF16), operand(rng, (n, k), BF16), poisoned((m, n), F32)
    tilepipe.matmul(a, b, out=out, alpha=0.625, registry=registry)
    assert (registry.plans.misses, registry.plans.hits) == (misses, hits + 1)
    check(out, *expect(f64(a), f64(b), alpha=0.625), k)
    # Another alpha is another plan (tp_plan_run takes only the plan's).
    tilepipe.matmul(a, b, out=out, alpha=0.5, registry=registry)
    assert registry.plans.misses == misses + 1 and len(registry.plans) == before + 2


def test_repeats_refuse_what_the_first_call_would(registry, rng):
    """A repeat of a cached call (tilepipe.calls) refuses what a first call
    of the same arguments would, D untouched: what its signature covers
    (dtype, shape, strides, out's writability) is described anew when it
    differs, and what it does not (the pointers) the library checks on each
    run, so a misaligned A or an out over A is refused on the repeat path."""
    m, n, k = 9, 40, 64
    a, b = operand(rng, (m, k), BF16), operand(rng, (n, k), BF16)
    y = tilepipe.matmul(a, b, alpha=0.75, registry=registry)
    hits, calls = registry.plans.hits, len(registry.plans.calls)
    again = tilepipe.matmul(a, b, alpha=0.75, registry=registry)
    assert registry.plans.hits == hits + 1 and again is not y and again.dtype == BF16
    check(again, *expect(f64(a), f64(b), alpha=0.75), k)

    def refused(cls, message, a, out, repeat):
        hits = registry.plans.hits
        _refused(registry, cls, message, a, b, out, alpha=0.75)
        assert registry.plans.hits == hits + (1 if repeat else 0)

    out = poisoned((m, n), BF16)
    tilepipe.matmul(a, b, out=out, alpha=0.75, registry=registry)
    # The same signature, pointers the library refuses: run from the Call.
    raw = np.zeros(m * k * 2 + 2, np.uint8)
    skewed = raw[1:1 + m * k * 2].view(BF16).reshape(m, k)
    assert skewed.strides == a.strides
    if skewed.ctypes.data % 2:
        refused(tilepipe.InvalidArgumentError, "not 2-byte aligned", skewed, out, repeat=True)
    shared = poisoned((m * k + m * n,), BF16)
    over_a = shared[:m * k].reshape(m, k)
    over_a[...] = a
    refused(tilepipe.InvalidArgumentError, "D overlaps A", over_a,
            shared[m * k - n:m * k - n + m * n].reshape(m, n), repeat=True)
    # A different signature: described and refused as a first call is.
    refused(tilepipe.UnsupportedError, "A is f32", a.astype(F32), out, repeat=False)
    refused(tilepipe.InvalidArgumentError, "A: inner stride is 2",
            operand(rng, (m, 2 * k), BF16)[:, ::2], out, repeat=False)
    refused(tilepipe.InvalidArgumentError, "stride of -", a[::-1], out, repeat=False)
    frozen = out.copy()
    frozen.flags.writeable = False
    refused(tilepipe.InvalidArgumentError, "read-only", a, frozen, repeat=False)
    # The refused signatures left no Call; the good one still runs right.
    assert len(registry.plans.calls) == calls + 1
    tilepipe.matmul(a, b, out=out, alpha=0.75, registry=registry)
    check(out, *expect(f64(a), f64(b), alpha=0.75), k)


def _refused(registry, cls, message, a, b, out, **kw):
    """matmul refuses with cls, the message matching, out unchanged."""
    before = out.copy()
    with pytest.raises(cls, match=message) as e:
        tilepipe.matmul(a, b, out=out, registry=registry, **kw)
    assert isinstance(e.value, tilepipe.Error) and e.value.status == cls.status
    assert np.array_equal(out.view(np.uint8), before.view(np.uint8))
    return e.value


def test_refusals(registry, rng):
    m, n, k = 17, 65, 129
    a, b, out = operand(rng, (m, k), BF16), operand(rng, (n, k), BF16), poisoned((m, n), BF16)
    # The library's own refusals, with its messages.
    _refused(registry, tilepipe.UnsupportedError, "A is f32; standard takes",
             a.astype(F32), b.astype(F32), out)
    _refused(registry, tilepipe.UnsupportedError, "A is bf16 but B is e4m3|B", a, b.astype(E4M3),
             out)
    _refused(registry, tilepipe.InvalidArgumentError, r"B has shape \[65, 128\]", a, b[:, :128],
             out)
    _refused(registry, tilepipe.InvalidArgumentError, r"D has shape|D.*\[17, 64\]", a, b,
             out[:, :64])
    _refused(registry, tilepipe.InvalidArgumentError, "A: inner stride is 2", a[:, ::2],
             b[:, ::2], out)
    _refused(registry, tilepipe.NotFoundError, "'nope'", a, b, out, payload="nope")
    _refused(registry, tilepipe.NotFoundError, "'nope'", a, b, out, epilogue="nope")
    _refused(registry, tilepipe.InvalidArgumentError, "use the residual epilogue", a, b, out,
             c=out.copy(), beta=0.5)
    _refused(registry, tilepipe.InvalidArgumentError, "C is missing", a, b, out,
             epilogue="residual", beta=0.5)
    _refused(registry, tilepipe.InvalidArgumentError, "a_scale is given", a, b, out,
             a_scale=np.ones((1, m), np.float32))
    # A bf16 A one byte off its element alignment.
    raw = np.zeros(m * k * 2 + 2, np.uint8)
    skewed = raw[1:1 + m * k * 2].view(BF16).reshape(m, k)
    if skewed.ctypes.data % 2:
        _refused(registry, tilepipe.InvalidArgumentError, "not 2-byte aligned", skewed, b, out)
    # The package's own, before the library is called.
    _refused(registry, tilepipe.UnsupportedError, "dtype float64 has no tilepipe type",
             a.astype(np.float64), b, out)
    _refused(registry, tilepipe.InvalidArgumentError, "stride of -", a[::-1], b, out)
    _refused(registry, tilepipe.InvalidArgumentError, "unknown backend", a, b, out,
             backend="tpu")
    _refused(registry, tilepipe.InvalidArgumentError, "host memory", a, b, out, backend="cuda")
    _refused(registry, tilepipe.InvalidArgumentError, "out_dtype", a, b, out, out_dtype="f32")
    frozen = out.copy()
    frozen.flags.writeable = False
    _refused(registry, tilepipe.InvalidArgumentError, "read-only", a, b, frozen)
    # After all of that the same call runs.
    tilepipe.matmul(a, b, out=out, registry=registry)
    check(out, *expect(f64(a), f64(b)), k)


def test_library_message_is_the_threads(registry, rng):
    a, b = operand(rng, (7, 64), BF16), operand(rng, (9, 64), BF16)
    with pytest.raises(tilepipe.UnsupportedError) as e:
        tilepipe.matmul(a.astype(F32), b.astype(F32), registry=registry)
    lib = tilepipe.library.load()
    assert e.value.message == lib.tp_error_message().decode()


def test_warm(registry):
    with pytest.raises(tilepipe.InvalidArgumentError, match="triples"):
        tilepipe.warm([], registry=registry)
    with pytest.raises(tilepipe.NotFoundError, match="'nope'"):
        tilepipe.warm([(16, 256, 256)], payload="nope", gpu="h100-sxm", registry=registry)
    with pytest.raises(tilepipe.Error, match="no-such-gpu"):
        tilepipe.warm([(16, 256, 256)], gpu="no-such-gpu", registry=registry)
    try:
        first = tilepipe.warm([(16, 256, 256), (16, 256, 256)], gpu="h100-sxm", jobs=1,
                              registry=registry)
    except tilepipe.NoDeviceError as e:
        pytest.skip(f"built without the CUDA toolkit: {e}")
    assert first["kernels"] == 1 and first["failed"] == 0
    assert first["cached"] + first["linked"] == 1
    again = tilepipe.warm([(16, 256, 256)], gpu="h100-sxm", registry=registry)
    assert again["kernels"] == 1 and again["cached"] == 1 and again["linked"] == 0


def test_threads_share_a_registry(registry, rng):
    """Threads run GEMMs on one registry at once (the same plan and new
    ones), each result right, and a refusal's message is its own thread's
    while the others run."""
    problems = []
    for i in range(8):
        m, n, k = (17, 65, 129) if i % 2 else (7 + i, 33, 65)
        a, b = operand(rng, (m, k), BF16), operand(rng, (n, k), BF16)
        problems.append((a, b, poisoned((m, n), F32)))
    messages, failures = [], []
    start = threading.Barrier(len(problems) + 1)

    def work(a, b, out):
        start.wait()
        for _ in range(5):
            tilepipe.matmul(a, b, out=out, registry=registry)

    def refuse():
        start.wait()
        for _ in range(20):
            try:
                tilepipe.matmul(problems[0][0], problems[0][1][:, :64], registry=registry)
            except tilepipe.InvalidArgumentError as e:
                messages.append(e.message)

    def guarded(fn, *args):
        try:
            fn(*args)
        except Exception as e:  # reported below: pytest sees no thread's exception
            failures.append(repr(e))

    threads = [threading.Thread(target=guarded, args=(work, *p)) for p in problems]
    threads.append(threading.Thread(target=guarded, args=(refuse,)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    for a, b, out in problems:
        check(out, *expect(f64(a), f64(b)), a.shape[1])
    assert len(messages) == 20 and all("B has shape" in msg for msg in messages)
