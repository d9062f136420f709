"""tilepipe.registry: an opened INI registry of plugins, and its plans.

Registry(path=None) opens a registry as tp_registry_open does: path None
searches $TILEPIPE_REGISTRY, ./tilepipe.ini, then the installed
registry.ini (docs/registry.md). .list() and .info(name) report what the
registry knows of each plugin (tp_registry_get / tp_registry_find).

A Registry owns the plans made from it (the plan cache, tilepipe.plan_cache):
close() destroys them, then closes the registry, as the C API requires
(plans before their registry). close() runs at the end of a `with` block
and when the object is collected; a closed registry refuses further use.
After opening, the registry is read-only and may be used from any thread
(docs/threads.md); close() must not race with other calls on it."""
import atexit
import ctypes
import os
import threading
from dataclasses import dataclass

from . import abi, errors, library
from .plan_cache import PlanCache


@dataclass(frozen=True)
class Plugin:
    """What the registry knows of one plugin (tilepipe/registry.h's
    tp_plugin_info). status is the tp_status number; error "" unless
    status is not 0 (then "file:line: why")."""
    name: str
    kind: str
    library: str
    version: str
    plugin: str
    enabled: bool
    cuda_version: int
    has_device_code: bool
    status: int
    error: str
    ini_file: str
    ini_line: int

    @property
    def usable(self):
        return self.enabled and self.status == errors.OK


class Registry:
    def __init__(self, path=None):
        lib = library.load()
        self._lib = lib
        self._handle = None
        handle = ctypes.c_void_p()
        library.call("tp_registry_open", ctypes.byref(handle),
                     None if path is None else os.fsencode(path))
        self._handle = handle
        self._lock = threading.Lock()
        self.plans = PlanCache(self)

    @property
    def handle(self):
        if self._handle is None:
            raise errors.InvalidArgumentError("tilepipe: the registry is closed")
        return self._handle

    @property
    def path(self):
        return library.text(self._lib.tp_registry_path(self.handle))

    def _plugin(self, info):
        t = library.text
        return Plugin(t(info.name), t(self._lib.tp_plugin_kind_name(info.kind)), t(info.library),
                      t(info.version), t(info.plugin), bool(info.enabled), info.cuda_version,
                      bool(info.has_device_code), info.status, t(info.error), t(info.ini_file),
                      info.ini_line)

    def list(self):
        """Every plugin of the registry, in file order (broken ones too)."""
        out = []
        for i in range(self._lib.tp_registry_count(self.handle)):
            info = abi.PluginInfo()
            library.call("tp_registry_get", self.handle, i, ctypes.byref(info))
            out.append(self._plugin(info))
        return out

    def info(self, name):
        """The plugin `name`; tilepipe.NotFoundError when the registry lacks it."""
        info = abi.PluginInfo()
        library.call("tp_registry_find", self.handle, name.encode(), ctypes.byref(info))
        return self._plugin(info)

    def close(self):
        """Destroys the registry's plans, then closes it. Idempotent."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            self.plans.destroy_all()
            self._lib.tp_registry_close(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            self.close()

    def __repr__(self):
        return f"<tilepipe.Registry {self.path if self._handle is not None else '(closed)'}>"


_default = None
_default_lock = threading.Lock()


def default():
    """The registry matmul uses when given none: Registry(None), opened on
    first use and kept for the process."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Registry()
    return _default


def _close_default():
    if _default is not None:
        _default.close()


# Plans and the registry are freed before the interpreter tears modules down.
atexit.register(_close_default)
