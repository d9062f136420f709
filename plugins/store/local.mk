# plugins/store: the plain store epilogue, D = alpha * acc.
plugin_LTLIBRARIES += plugins/store/tp_store.la
plugins_store_tp_store_la_SOURCES = \
	plugins/store/store.h \
	plugins/store/plugin.c \
	plugins/store/plan.c \
	plugins/store/cpu.c
plugins_store_tp_store_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
plugins_store_tp_store_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
plugins_store_tp_store_la_LDFLAGS = $(TP_PLUGIN_LDFLAGS)
plugins_store_tp_store_la_LIBADD = $(TP_PLUGIN_LIBADD)
# Its device code: LTO-IR embedded in the .so (build-aux/device.mk).
EXTRA_DIST += plugins/store/device/store_hook.cu
if TP_HAVE_CUDA
nodist_plugins_store_tp_store_la_SOURCES = plugins/store/device/store_hook.ltoir.h
TP_DEVICE_BLOBS += plugins/store/device/store_hook.ltoir.h
endif
