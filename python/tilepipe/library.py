"""tilepipe.library: finding and loading libtilepipe, and the C functions'
signatures.

The library is looked for, in order: the file $TILEPIPE_LIBRARY names;
libtilepipe.so.1 (then libtilepipe.so) in `pkg-config --variable=libdir
tilepipe`; then the dynamic loader's own search (LD_LIBRARY_PATH,
ld.so.cache, the system folders). The first that loads is used, once per
process; if none does, load() raises tilepipe.NotFoundError naming every
place tried and why each failed.

call() runs a function that returns a tp_status and turns a failure into
the matching tilepipe.Error with the calling thread's tp_error_message()
(ctypes runs the call on the calling thread, whose message it is)."""
import ctypes
import os
import subprocess
import threading

from . import abi, errors

_lock = threading.Lock()
_lib = None

_SONAMES = ("libtilepipe.so.1", "libtilepipe.so")


def _candidates():
    """(what, path) pairs in search order."""
    env = os.environ.get("TILEPIPE_LIBRARY")
    if env:
        yield "$TILEPIPE_LIBRARY", env
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "tilepipe"],
                                capture_output=True, text=True, timeout=30)
        if libdir.returncode == 0 and libdir.stdout.strip():
            for name in _SONAMES:
                yield "pkg-config's libdir", os.path.join(libdir.stdout.strip(), name)
        else:
            yield "pkg-config", None
    except (OSError, subprocess.SubprocessError):
        yield "pkg-config", None
    for name in _SONAMES:
        yield "the dynamic loader's path", name


def _declare(lib):
    c = ctypes
    status = c.c_int
    sigs = {
        "tp_version": (c.c_char_p, []),
        "tp_status_string": (c.c_char_p, [c.c_int]),
        "tp_error_message": (c.c_char_p, []),
        "tp_dtype_from_name": (c.c_int, [c.c_char_p]),
        "tp_registry_open": (status, [c.POINTER(c.c_void_p), c.c_char_p]),
        "tp_registry_close": (None, [c.c_void_p]),
        "tp_registry_path": (c.c_char_p, [c.c_void_p]),
        "tp_registry_count": (c.c_size_t, [c.c_void_p]),
        "tp_registry_get": (status, [c.c_void_p, c.c_size_t, c.POINTER(abi.PluginInfo)]),
        "tp_registry_find": (status, [c.c_void_p, c.c_char_p, c.POINTER(abi.PluginInfo)]),
        "tp_plugin_kind_name": (c.c_char_p, [c.c_int]),
        "tp_device_select": (status, [c.c_int]),
        "tp_plan_create": (status, [c.POINTER(c.c_void_p), c.c_void_p, c.c_char_p, c.c_char_p,
                                    c.POINTER(abi.GemmDesc), c.c_int]),
        "tp_plan_run": (status, [c.c_void_p, c.POINTER(abi.GemmDesc), c.c_void_p]),
        "tp_plan_destroy": (None, [c.c_void_p]),
        "tp_problem_describe": (status, [c.c_void_p, c.c_char_p, c.POINTER(abi.ProblemOptions),
                                         c.POINTER(abi.GemmDesc), c.POINTER(abi.Problem)]),
        "tp_link_target_lookup": (status, [c.c_char_p, c.POINTER(abi.LinkTarget)]),
        "tp_cache_warm": (status, [c.c_void_p, c.c_char_p, c.c_char_p, c.POINTER(abi.GemmDesc),
                                   c.c_size_t, c.POINTER(abi.WarmOptions),
                                   c.POINTER(abi.WarmResult)]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def load():
    """The loaded libtilepipe (a ctypes.CDLL), loading it on first use."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            tried = []
            for what, path in _candidates():
                if path is None:
                    tried.append(f"{what}: no 'tilepipe' package (pkg-config --variable=libdir "
                                 "tilepipe failed)")
                    continue
                try:
                    lib = ctypes.CDLL(path)
                except OSError as e:
                    tried.append(f"{what}: {e}")
                    continue
                _declare(lib)
                _lib = lib
                break
            else:
                raise errors.NotFoundError(
                    "tilepipe: libtilepipe not found; tried " + "; ".join(tried) +
                    ". Set TILEPIPE_LIBRARY to the library's path, or install tilepipe "
                    "where pkg-config finds it", status_name="not found")
    return _lib


def text(raw):
    return raw.decode("utf-8", "replace") if raw is not None else ""


def last_error(status):
    """The Error for `status` with the calling thread's message."""
    lib = load()
    return errors.error_for(status, text(lib.tp_error_message()),
                            text(lib.tp_status_string(status)))


def call(name, *args):
    """lib.name(*args) for a function returning tp_status; raises on failure."""
    status = getattr(load(), name)(*args)
    if status != errors.OK:
        raise last_error(status)
