"""tilepipe.errors: the exceptions, one class per tp_status.

Every failure of the library raises a subclass of Error carrying the
status (its number and tp_status_string's name) and the message that
tp_error_message() gave on the calling thread. Checks the package makes
itself, before any call (an array NumPy cannot describe to tilepipe, an
output that is read-only), raise the same classes with their own message
and the status the library would have given (TP_ERR_INVALID_ARGUMENT or
TP_ERR_UNSUPPORTED)."""

# tp_status values, in include/tilepipe/status.h's order.
OK = 0
INVALID_ARGUMENT = 1
UNSUPPORTED = 2
NOT_FOUND = 3
REGISTRY = 4
PLUGIN = 5
NO_DEVICE = 6
CUDA = 7
LINK = 8
OUT_OF_MEMORY = 9
IO = 10
INTERNAL = 11


class Error(Exception):
    """A tilepipe failure: .status (int), .status_name, .message."""

    status = INTERNAL

    def __init__(self, message, status=None, status_name=None):
        if status is not None:
            self.status = status
        self.message = message
        self.status_name = status_name or _NAMES.get(self.status, "unknown status")
        super().__init__(f"{message} ({self.status_name})" if message else self.status_name)


class InvalidArgumentError(Error, ValueError):
    status = INVALID_ARGUMENT


class UnsupportedError(Error):
    status = UNSUPPORTED


class NotFoundError(Error, LookupError):
    status = NOT_FOUND


class RegistryError(Error):
    status = REGISTRY


class PluginError(Error):
    status = PLUGIN


class NoDeviceError(Error):
    status = NO_DEVICE


class CudaError(Error):
    status = CUDA


class LinkError(Error):
    status = LINK


class OutOfMemoryError(Error, MemoryError):
    status = OUT_OF_MEMORY


class IOFailure(Error, OSError):
    status = IO


class InternalError(Error):
    status = INTERNAL


_CLASSES = {
    INVALID_ARGUMENT: InvalidArgumentError,
    UNSUPPORTED: UnsupportedError,
    NOT_FOUND: NotFoundError,
    REGISTRY: RegistryError,
    PLUGIN: PluginError,
    NO_DEVICE: NoDeviceError,
    CUDA: CudaError,
    LINK: LinkError,
    OUT_OF_MEMORY: OutOfMemoryError,
    IO: IOFailure,
    INTERNAL: InternalError,
}

# The names tp_status_string gives, for errors raised before the library is
# asked (the library's own errors carry its string).
_NAMES = {
    INVALID_ARGUMENT: "invalid argument",
    UNSUPPORTED: "unsupported",
    NOT_FOUND: "not found",
    INTERNAL: "internal error",
}


def error_for(status, message, status_name=None):
    """The Error subclass instance for a tp_status (Error for an unknown one)."""
    cls = _CLASSES.get(status, Error)
    return cls(message, status=status, status_name=status_name)
