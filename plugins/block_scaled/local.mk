# plugins/block_scaled: MXFP8 and NVFP4 with per-vector scale factors.
plugin_LTLIBRARIES += plugins/block_scaled/tp_block_scaled.la
plugins_block_scaled_tp_block_scaled_la_SOURCES = \
	plugins/block_scaled/block_scaled.h \
	plugins/block_scaled/plugin.c \
	plugins/block_scaled/plan.c \
	plugins/block_scaled/problem.c \
	plugins/block_scaled/cpu.c \
	plugins/block_scaled/gpu.c \
	plugins/block_scaled/device/block_scaled_params.h
plugins_block_scaled_tp_block_scaled_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
plugins_block_scaled_tp_block_scaled_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
plugins_block_scaled_tp_block_scaled_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
plugins_block_scaled_tp_block_scaled_la_LIBADD = $(TP_PLUGIN_LIBADD)
# Its device code (MXFP8 W8A16): LTO-IR embedded in the .so (build-aux/device.mk).
EXTRA_DIST += plugins/block_scaled/device/block_scaled_mainloop.cu
if TP_HAVE_CUDA
nodist_plugins_block_scaled_tp_block_scaled_la_SOURCES = \
	plugins/block_scaled/device/block_scaled_mainloop.ltoir.h
TP_DEVICE_BLOBS += plugins/block_scaled/device/block_scaled_mainloop.ltoir.h
endif
