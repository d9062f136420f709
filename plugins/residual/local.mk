# plugins/residual: the residual epilogue, D = alpha * acc + beta * C.
plugin_LTLIBRARIES += plugins/residual/tp_residual.la
plugins_residual_tp_residual_la_SOURCES = \
	plugins/residual/residual.h \
	plugins/residual/plugin.c \
	plugins/residual/plan.c \
	plugins/residual/cpu.c
plugins_residual_tp_residual_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
plugins_residual_tp_residual_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
plugins_residual_tp_residual_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
plugins_residual_tp_residual_la_LIBADD = $(TP_PLUGIN_LIBADD)
# Its device code: LTO-IR embedded in the .so (build-aux/device.mk).
EXTRA_DIST += plugins/residual/device/residual_hook.cu
if TP_HAVE_CUDA
nodist_plugins_residual_tp_residual_la_SOURCES = plugins/residual/device/residual_hook.ltoir.h
TP_DEVICE_BLOBS += plugins/residual/device/residual_hook.ltoir.h
endif
