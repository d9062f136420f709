# plugins/standard: the standard payload (bf16, f16, fp8 operands).
plugin_LTLIBRARIES += plugins/standard/tp_standard.la
plugins_standard_tp_standard_la_SOURCES = \
	plugins/standard/standard.h \
	plugins/standard/plugin.c \
	plugins/standard/gpu.c \
	plugins/standard/device/standard_params.h \
	plugins/standard/plan.c
plugins_standard_tp_standard_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
plugins_standard_tp_standard_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
plugins_standard_tp_standard_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
plugins_standard_tp_standard_la_LIBADD = $(TP_PLUGIN_LIBADD)
# Its device code: LTO-IR embedded in the .so (build-aux/device.mk).
EXTRA_DIST += plugins/standard/device/standard_mainloop.cu
if TP_HAVE_CUDA
nodist_plugins_standard_tp_standard_la_SOURCES = plugins/standard/device/standard_mainloop.ltoir.h
TP_DEVICE_BLOBS += plugins/standard/device/standard_mainloop.ltoir.h
endif
