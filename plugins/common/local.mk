# plugins/common: code several plugins share (checks, tuning keys, the CPU
# stage format and consumer, the epilogue loop), linked into each plugin .so.
# Plugins never link libtilepipe: they see the core only through the host
# API table and the header-only codecs (tilepipe/dtype_codec.h).
TP_PLUGIN_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
TP_PLUGIN_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
TP_PLUGIN_LDFLAGS = -module -avoid-version -no-undefined -shared
TP_PLUGIN_LIBADD = plugins/common/libtp_plugin_common.la

noinst_LTLIBRARIES += plugins/common/libtp_plugin_common.la
plugins_common_libtp_plugin_common_la_SOURCES = \
	plugins/common/errmsg.h \
	plugins/common/errmsg.c \
	plugins/common/checks.h \
	plugins/common/checks.c \
	plugins/common/tuning.h \
	plugins/common/tuning.c \
	plugins/common/stage_tensor.h \
	plugins/common/tile_load.h \
	plugins/common/tile_load.c \
	plugins/common/cpu_stage.h \
	plugins/common/cpu_stage.c \
	plugins/common/device_image.h \
	plugins/common/epilogue_apply.h \
	plugins/common/epilogue_apply.c
plugins_common_libtp_plugin_common_la_CPPFLAGS = $(TP_PLUGIN_CPPFLAGS)
plugins_common_libtp_plugin_common_la_CFLAGS = $(TP_PLUGIN_CFLAGS)
