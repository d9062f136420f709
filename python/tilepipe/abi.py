"""tilepipe.abi: ctypes mirrors of the C API's structs and enums.

Each Structure repeats its header's fields in order and with the same
types, so that ctypes lays it out as the C compiler does (natural
alignment, the same padding): tp_tensor (tilepipe/tensor.h), tp_gemm_desc
(tilepipe/gemm.h), tp_plugin_info (tilepipe/registry.h), tp_scale_map,
tp_operand_rounding, tp_problem_options, tp_problem (tilepipe/problem.h), tp_link_target
(tilepipe/link.h), tp_warm_options and tp_warm_result (tilepipe/warm.h).
The versioned ones carry struct_size first and are sent with
sizeof(the mirror), so the library reads exactly the fields mirrored here
(later versions of a struct only append fields)."""
import ctypes

MAX_RANK = 4

# tp_layout
LAYOUT_STRIDED = 0
LAYOUT_SF_128X4 = 1

# tp_backend
BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2}


class Tensor(ctypes.Structure):
    _fields_ = [
        ("dtype", ctypes.c_int),
        ("layout", ctypes.c_int),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.c_int64 * MAX_RANK),
        ("stride", ctypes.c_int64 * MAX_RANK),
        ("data", ctypes.c_void_p),
    ]


class GemmDesc(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("m", ctypes.c_int64),
        ("n", ctypes.c_int64),
        ("k", ctypes.c_int64),
        ("a", Tensor),
        ("b", Tensor),
        ("a_scale", Tensor),
        ("b_scale", Tensor),
        ("c", Tensor),
        ("d", Tensor),
        ("alpha", ctypes.c_float),
        ("beta", ctypes.c_float),
        ("bias", Tensor),
    ]


class PluginInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("kind", ctypes.c_int),
        ("library", ctypes.c_char_p),
        ("version", ctypes.c_char_p),
        ("plugin", ctypes.c_char_p),
        ("enabled", ctypes.c_int),
        ("cuda_version", ctypes.c_int),
        ("has_device_code", ctypes.c_int),
        ("status", ctypes.c_int),
        ("error", ctypes.c_char_p),
        ("ini_file", ctypes.c_char_p),
        ("ini_line", ctypes.c_int),
    ]


class ScaleMap(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int32) for name in ("rows", "k", "k_first", "exp_min", "exp_count")]


class OperandRounding(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int32) for name in ("rows", "k", "exp")]


class ProblemOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("scale_layout", ctypes.c_int),
        ("pad", ctypes.c_int64),
        ("b_scale_dtype", ctypes.c_int),
    ]


class Problem(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("a_scale", ScaleMap),
        ("b_scale", ScaleMap),
        ("acc_bits", ctypes.c_int32),
        ("acc_k", ctypes.c_int32),
        ("a_rounding", OperandRounding),
        ("b_rounding", OperandRounding),
    ]


class LinkTarget(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("name", ctypes.c_char * 64),
        ("sm_count", ctypes.c_int32),
        ("cc_major", ctypes.c_int32),
        ("cc_minor", ctypes.c_int32),
        ("smem_per_block", ctypes.c_uint32),
    ]


WARM_PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                 ctypes.c_double, ctypes.c_char_p)


class WarmOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("target", ctypes.POINTER(LinkTarget)),
        ("jobs", ctypes.c_int32),
        ("progress", WARM_PROGRESS),
        ("progress_context", ctypes.c_void_p),
    ]


class WarmResult(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("kernels", ctypes.c_int32),
        ("cached", ctypes.c_int32),
        ("linked", ctypes.c_int32),
        ("failed", ctypes.c_int32),
        ("jobs", ctypes.c_int32),
        ("cache_dir", ctypes.c_char * 4096),
    ]


def new_desc(m, n, k):
    """A descriptor as tp_gemm_desc_init leaves it: zeroed (every tensor
    absent), struct_size set, alpha 1, beta 0."""
    d = GemmDesc()
    d.struct_size = ctypes.sizeof(GemmDesc)
    d.m, d.n, d.k = m, n, k
    d.alpha, d.beta = 1.0, 0.0
    return d
