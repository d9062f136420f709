# libtilepipe: the core. Host C11 only; the GPU backend reaches the driver and
# nvJitLink through dlopen, so nothing here links against CUDA.
#
# Everything is built once into a convenience library (tests of internals
# link it directly); the installed libtilepipe wraps it and exports only the
# public API named in include/tilepipe/.
noinst_LTLIBRARIES += core/libtilepipe_core.la
core_libtilepipe_core_la_SOURCES = \
	core/error.h \
	core/file_kind.h \
	core/file_kind.c \
	core/gemm_check.h \
	core/gemm_check.c \
	core/plan_internal.h \
	core/plan.c \
	core/versioned.h \
	core/versioned.c \
	core/link_target.h \
	core/link_target.c \
	core/link_check.c \
	core/problem.c \
	core/warm.c \
	core/backend/cpu/cpu_backend.h \
	core/backend/cpu/cpu_backend.c \
	core/backend/cuda/cuda_backend.h \
	core/backend/cuda/cuda_backend.c \
	core/backend/cuda/tma_encode.h \
	core/backend/cuda/tma_encode.c \
	core/status.c \
	core/version.c \
	core/registry/ini_file.h \
	core/registry/ini_file.c \
	core/registry/host_api.h \
	core/registry/host_api.c \
	core/registry/loader.h \
	core/registry/loader.c \
	core/registry/device_code.h \
	core/registry/device_code.c \
	core/registry/name_index.h \
	core/registry/name_index.c \
	core/registry/registry_internal.h \
	core/registry/registry.c \
	core/dtype.c \
	core/tensor.c \
	core/gemm_desc.h \
	core/gemm_desc.c \
	core/device.c
# The GPU backend's host side: libcuda and nvJitLink through dlopen, the
# ptxas report check, the kernel cache, loading and launch.
core_libtilepipe_core_la_SOURCES += \
	core/backend/cuda/once.h \
	core/backend/cuda/device_choice.h \
	core/backend/cuda/device_choice.c \
	core/backend/cuda/driver.h \
	core/backend/cuda/driver.c \
	core/backend/cuda/nvjitlink.h \
	core/backend/cuda/nvjitlink.c \
	core/backend/cuda/link_log.h \
	core/backend/cuda/link_log.c \
	core/backend/cuda/cache_file.h \
	core/backend/cuda/cache_file.c \
	core/backend/cuda/kernel_cache.h \
	core/backend/cuda/kernel_cache.c \
	core/backend/cuda/kernel.h \
	core/backend/cuda/kernel.c \
	core/backend/cuda/link_workers.h \
	core/backend/cuda/link_workers.c
# Installed places the registry searches; tests/local.mk reuses them.
TP_INSTALL_PATH_DEFINES = -DTP_PLUGIN_DIR='"$(plugindir)"' \
	-DTP_REGISTRY_FILE='"$(registrydir)/registry.ini"'
core_libtilepipe_core_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(INIH_CFLAGS) $(CUDA_CPPFLAGS) \
	$(TP_INSTALL_PATH_DEFINES)
core_libtilepipe_core_la_LIBADD = $(INIH_LIBS)

lib_LTLIBRARIES += core/libtilepipe.la
core_libtilepipe_la_SOURCES =
core_libtilepipe_la_LIBADD = core/libtilepipe_core.la
core_libtilepipe_la_LDFLAGS = -version-info $(TP_LT_VERSION) -no-undefined \
	-export-symbols-regex '^tp_(status_string|error_message|dtype_|tensor_|gemm_desc_init|registry_(open|close|path|count|get|find)$$|plugin_kind_name|backend_(name|from_name)|plan_(create|run|backend|describe|destroy)$$|problem_describe$$|link_check(_target|_with)?$$|link_target_(lookup|detect)$$|cache_warm$$|device_(info|count|select|alloc|free|copy_to|copy_from|copy_within|memset|synchronize|timer_(create|record|elapsed_ms|destroy))$$|version$$)'
