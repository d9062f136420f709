# plugins/blockwise_fp8: blockwise-scaled FP8 (DeepSeek-V3: 1x128 A, 128x128 B).
plugin_LTLIBRARIES += plugins/blockwise_fp8/tp_blockwise_fp8.la
plugins_blockwise_fp8_tp_blockwise_fp8_la_SOURCES = \
	plugins/blockwise_fp8/blockwise_fp8.h \
	plugins/blockwise_fp8/plugin.c \
	plugins/blockwise_fp8/plan.c \
	plugins/blockwise_fp8/problem.c \
	plugins/blockwise_fp8/cpu.c \
	plugins/blockwise_fp8/gpu.c \
	plugins/blockwise_fp8/device/blockwise_fp8_params.h
plugins_blockwise_fp8_tp_blockwise_fp8_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
plugins_blockwise_fp8_tp_blockwise_fp8_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
plugins_blockwise_fp8_tp_blockwise_fp8_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
plugins_blockwise_fp8_tp_blockwise_fp8_la_LIBADD = $(TP_PLUGIN_LIBADD)
# Its device code: LTO-IR embedded in the .so (build-aux/device.mk).
EXTRA_DIST += plugins/blockwise_fp8/device/blockwise_fp8_mainloop.cu
if TP_HAVE_CUDA
nodist_plugins_blockwise_fp8_tp_blockwise_fp8_la_SOURCES = \
	plugins/blockwise_fp8/device/blockwise_fp8_mainloop.ltoir.h
TP_DEVICE_BLOBS += plugins/blockwise_fp8/device/blockwise_fp8_mainloop.ltoir.h
endif
